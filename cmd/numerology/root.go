package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes. exitCodes below maps errors to them; the root --help lists them.
const (
	exitOK          = 0
	exitError       = 1 // any other failure
	exitUsage       = 2 // bad command line: unknown flag, bad value, out-of-range years
	exitContent     = 3 // the content does not validate
	exitVerify      = 4 // a tree or archive does not match its manifest
	exitIO          = 5 // the output cannot be written or the input tree cannot be read
	exitAuth        = 6 // Cloudflare rejected or lacks the credentials
	exitLimit       = 7 // the tree exceeds the Cloudflare plan's limits
	exitInterrupted = 130
)

const exitCodeHelp = `Exit codes:
  0    success
  1    any other failure
  2    bad command line (unknown flag, bad value, years outside 1900–2100)
  3    the content does not validate (every problem is printed as file:line: field: message)
  4    verify found a tree or archive that does not match its manifest
  5    the output cannot be written, or the input tree cannot be read
  6    Cloudflare rejected the credentials, or they are missing
  7    the tree exceeds the Cloudflare plan's limits
  130  interrupted (Ctrl-C); the previous output is left intact`

// exitError wraps an error with the exit code it should produce.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// withCode marks err so that Main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

// usageErrorf reports a bad command line.
func usageErrorf(format string, args ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, args...))
}

// exitCode is the one table from errors to exit codes.
func exitCode(err error) int {
	var ce *codedError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ce):
		return ce.code
	default:
		return exitError
	}
}

// Main runs the command line args and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "numerology: interrupted")
		} else {
			fmt.Fprintln(stderr, "numerology: "+strings.TrimRight(err.Error(), "\n"))
		}
	}
	return exitCode(err)
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "numerology",
		Short: "Generate, verify, serve, pack and deploy the Open Numerology Data API",
		Long: `numerology builds the Open Numerology Data API as a static site: every response is
precomputed into an out/ tree with a manifest, which it can verify, serve locally with the
full API semantics, pack as an offline dataset and deploy to Cloudflare.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return withCode(exitUsage, err)
	})
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitCodeHelp + "\n")
	root.AddCommand(
		newGenerateCmd(),
		newVerifyCmd(),
		newDeployCmd(),
		newPackCmd(),
		newServeCmd(),
		newVersionCmd(),
	)
	for _, c := range root.Commands() {
		c.SetHelpTemplate(root.HelpTemplate())
	}
	return root
}

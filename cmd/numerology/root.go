package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// codedError marks an error of no kind with the exit code it should produce (an archive
// that cannot be read, a listener that cannot open); exitTable gives every error kind its code,
// and a kind wins over a mark.
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

// usageError is the kind of a bad command line: a flag's value, a flag cobra refuses.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// problemsError is the kind of a check that ran to the end and found problems (verify of a
// tree or an archive); the problems themselves are printed before it.
type problemsError struct {
	what string
	n    int
}

func (e *problemsError) Error() string {
	return fmt.Sprintf("verify %s: %d problem(s) found", e.what, e.n)
}

// usageErrorf reports a bad command line.
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
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
		return &usageError{err}
	})
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitCodeHelp() + "\n")
	root.AddCommand(
		newGenerateCmd(),
		newVerifyCmd(),
		newDeployCmd(),
		newPackCmd(),
		newServeCmd(),
		newMCPCmd(),
		newVersionCmd(),
	)
	for _, c := range root.Commands() {
		c.SetHelpTemplate(root.HelpTemplate())
	}
	return root
}

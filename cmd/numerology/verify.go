package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

type verifyOptions struct {
	dir string
}

func newVerifyCmd() *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check a generated tree against its manifest and the API contract",
		Long: `verify re-hashes every file of a tree against manifest.json, checks that every route of
the manifest's years is present and that no unlisted file exists, that every JSON file
parses and that every matrix record holds the arcana of the matrix rule. Each problem is
printed on its own line (missing, extra, corrupt, invalid) and the exit code is 4 if any.`,
		Example: `  numerology verify
  numerology verify --dir /srv/api`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVerify(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "d", "out", "the tree to check")
	return cmd
}

func runVerify(ctx context.Context, cmd *cobra.Command, opts *verifyOptions) error {
	start := time.Now()
	bar := newProgress(cmd.ErrOrStderr(), "verify")
	res, err := generator.Verify(ctx, opts.dir, bar.Func())
	bar.Done()
	if err != nil {
		if errors.Is(err, manifest.ErrNoManifest) {
			return withCode(exitVerify, err)
		}
		return withCode(exitVerify, fmt.Errorf("verify %s: %w", opts.dir, err))
	}
	out := cmd.OutOrStdout()
	for _, p := range res.Problems {
		fmt.Fprintln(out, p)
	}
	if n := len(res.Problems); n > 0 {
		return withCode(exitVerify, fmt.Errorf("verify %s: %d problem(s) found", opts.dir, n))
	}
	fmt.Fprintf(out, "verified %s files, %s in %.1fs: %s matches its manifest\n",
		groupDigits(int64(res.Manifest.Counts.Files)), humanBytes(res.Manifest.Counts.Bytes), time.Since(start).Seconds(), opts.dir)
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/pack"
	"github.com/opennumerology/numerology/internal/humanize"
)

type verifyOptions struct {
	dir        string
	contentDir string
	archive    string
	siteURL    string
}

func newVerifyCmd() *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check a generated tree against its manifest and the API contract",
		Long: `verify re-hashes every file of a tree against manifest.json, checks that every route of
the manifest's years is present and that no unlisted file exists, and that every file of a
route (and every line of a packed file, a month's or a year's) is byte for byte what the
route gives from the rules and the content; a difference names the file and the field. A
tree generated with --content is verified with the same --content. Each problem is printed on its own line
(missing, extra, corrupt, invalid) and the exit code is 4 if any.
A manifest path outside the tree (../…) or through a link is a problem, never read.

With --archive, verify checks a download of the dataset made by pack instead. The zip:
every file against its SHA256SUMS and the bytes and hashes of datapackage.json, and every
file against what pack makes of the rules and the content (--content) for the site URL,
years and date its datapackage.json states: each table's rows as CSV, Parquet and SQLite,
the routes' JSON, the documents. A <route>.jsonl.gz: every record against what its route
renders for its date, in date order, whole years (--site-url, default site.yaml's, is the
site its records name). What it holds in memory and expands is bounded: a SHA256SUMS or
datapackage.json over ` + strconv.Itoa(pack.MaxKeptEntry>>20) + ` MiB, a name over ` + humanize.Count(pack.MaxEntryName) + ` bytes, more than ` + humanize.Count(pack.MaxEntries) + `
entries, zip entries whose bytes overlap, or more than ` + strconv.Itoa(pack.MaxExpanded>>20) + ` MiB expanded in all is a
problem of the archive (exit 4), and reading stops there. The first ` + strconv.Itoa(pack.MaxProblems) + ` problems are
listed, the others counted.`,
		Example: `  numerology verify
  numerology verify --dir /srv/api
  numerology verify --archive dist/numerology-dataset-1.0.zip`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVerify(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "d", "out", "the tree to check")
	cmd.Flags().StringVar(&opts.contentDir, "content", "", "the content the tree was generated from, instead of the built-in content")
	cmd.Flags().StringVar(&opts.archive, "archive", "", "check this download of the dataset (the .zip or a .jsonl.gz) instead of a tree")
	cmd.Flags().StringVar(&opts.siteURL, "site-url", "", "with --archive: the site URL a .jsonl.gz's records name, overriding site_url of site.yaml")
	cmd.MarkFlagsMutuallyExclusive("dir", "archive")
	return cmd
}

func runVerify(ctx context.Context, cmd *cobra.Command, opts *verifyOptions) error {
	if opts.archive != "" {
		return runVerifyArchive(ctx, cmd, opts)
	}
	if opts.siteURL != "" {
		return usageErrorf("--site-url: only with --archive (a tree's manifest names its site)")
	}
	start := time.Now()
	bar := newProgress(cmd.ErrOrStderr(), "verify")
	vo := generator.VerifyOptions{Dir: opts.dir, OnProgress: bar.Func()}
	if opts.contentDir != "" {
		if fi, err := os.Stat(opts.contentDir); err != nil || !fi.IsDir() {
			bar.Done()
			return usageErrorf("--content: %s is not a directory", opts.contentDir)
		}
		vo.Content = os.DirFS(opts.contentDir)
	}
	res, err := generator.VerifyTree(ctx, vo)
	bar.Done()
	var problems content.Errors
	if errors.As(err, &problems) {
		return withCode(exitContent, err)
	}
	if err != nil {
		// A tree that cannot be read at all; exitTable gives a missing manifest 5 and an
		// invalid one 4, like every command.
		return withCode(exitIO, fmt.Errorf("verify %s: %w", opts.dir, err))
	}
	out := cmd.OutOrStdout()
	for _, p := range res.Problems {
		fmt.Fprintln(out, p)
	}
	if n := len(res.Problems); n > 0 {
		return &problemsError{what: opts.dir, n: n}
	}
	fmt.Fprintf(out, "verified %s files, %s in %.1fs: %s matches its manifest\n",
		humanize.Count(int64(res.Manifest.Counts.Files)), humanize.Bytes(res.Manifest.Counts.Bytes), time.Since(start).Seconds(), opts.dir)
	return nil
}

func runVerifyArchive(ctx context.Context, cmd *cobra.Command, opts *verifyOptions) error {
	file := opts.archive
	start := time.Now()
	content := datasetContent(opts.contentDir)
	// The content is loaded first: a problem of it is the content's (exit 3), not the archive's.
	if _, err := content(opts.siteURL); err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), "verify")
	rep, err := pack.VerifyArchive(ctx, file, pack.VerifyOptions{
		OnProgress: bar.Func(),
		Content: func(siteURL string) (*pack.Content, error) {
			if siteURL == "" {
				siteURL = opts.siteURL
			}
			return content(siteURL)
		},
	})
	bar.Done()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(exitVerify, fmt.Errorf("verify %s: %w", file, err))
	}
	out := cmd.OutOrStdout()
	for _, p := range rep.Problems {
		fmt.Fprintln(out, p)
	}
	if rep.More > 0 {
		fmt.Fprintf(out, "… and %s more problems (only the first %d are listed)\n", humanize.Count(int64(rep.More)), len(rep.Problems))
	}
	if n := len(rep.Problems) + rep.More; n > 0 {
		return &problemsError{what: file, n: n}
	}
	if rep.Format == pack.JSONLGz {
		fmt.Fprintf(out, "verified %s records in %.1fs: %s is what route %s renders\n",
			humanize.Count(int64(rep.Files)), time.Since(start).Seconds(), file, rep.Top)
		return nil
	}
	fmt.Fprintf(out, "verified %s files in %.1fs: %s matches its SHA256SUMS and datapackage.json, and is what pack makes of the rules and the content\n",
		humanize.Count(int64(rep.Files)), time.Since(start).Seconds(), file)
	return nil
}

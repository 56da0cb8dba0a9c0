package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/generator/pack"
	"github.com/opennumerology/numerology/internal/humanize"
)

type packOptions struct {
	dir        string
	to         string
	contentDir string
	publish    bool
}

func newPackCmd() *cobra.Command {
	opts := &packOptions{}
	cmd := &cobra.Command{
		Use:   "pack",
		Short: "Pack a generated tree as the offline dataset (.tar.gz and .zip)",
		Long: `pack builds numerology-dataset-<api_version>.tar.gz and .zip from a generated tree. Each
holds, under the folder numerology-dataset-<api_version>/, the API's JSON files (the same
bytes the API serves), matrix.csv, arcana.csv, life-path.csv, datapackage.json (Frictionless
Data Package), CITATION.cff, LICENSE, README.md and SHA256SUMS.

The archives are reproducible: entries sorted, fixed times, owners and modes, so packing
the same tree twice gives byte-identical files. Times are SOURCE_DATE_EPOCH when set,
otherwise 2000-01-01T00:00:00Z.

With --publish (the default) pack also copies every archive of at most 25 MiB (the
Workers static asset limit) into the tree's downloads/ and rewrites its manifest.json to
list them, so that numerology verify passes and the servers offer /downloads/…. It removes
only the downloads it published before (those the manifest lists); other files in
downloads/ stay, and a downloads/ that is a link (or a file) is refused (exit 5): pack
never writes or deletes outside the tree. A later generate replaces the tree, recognising
pack's files as its own: run pack again after it. A --to inside the tree is refused before
any work (exit 2): the archives would be files its manifest does not list.`,
		Example: `  numerology generate && numerology pack
  numerology pack --dir /srv/api --to release/
  numerology pack --publish=false      # write dist/ only, leave the tree as it is`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPack(cmd.Context(), cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.dir, "dir", "d", "out", "the generated tree to pack")
	f.StringVar(&opts.to, "to", "dist", "the directory to write the archives to")
	f.StringVar(&opts.contentDir, "content", "", "read the publisher and title from this content directory instead of the built-in content")
	f.BoolVar(&opts.publish, "publish", true, "also place the archives that fit in the tree's downloads/ and list them in its manifest")
	return cmd
}

func runPack(ctx context.Context, cmd *cobra.Command, opts *packOptions) error {
	modTime, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	if err := checkPackTo(opts.to, opts.dir); err != nil {
		return err
	}
	site, err := loadSite(opts.contentDir, "")
	if err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), "pack")
	res, err := pack.Pack(ctx, pack.Options{
		Dir: opts.dir, To: opts.to, Publish: opts.publish, ModTime: modTime,
		Publisher: site.Content.Site.Publisher, Title: site.Content.Site.Title, LicenseName: site.Content.Site.LicenseName,
		Disclaimer: site.Content.Site.Disclaimer, DisclaimerEN: site.Content.Site.DisclaimerEN,
		OnProgress: bar.Func(),
	})
	bar.Done()
	if err != nil {
		return fmt.Errorf("pack: %w", err) // exitTable classifies it
	}
	w := cmd.OutOrStdout()
	for _, a := range res.Archives {
		note := "not published: larger than the 25 MiB static asset limit"
		if a.Published {
			note = "published as " + opts.dir + "/downloads/" + a.Name
		} else if !opts.publish {
			note = "not published (--publish=false)"
		}
		fmt.Fprintf(w, "%s  %s  %s (%s)\n", a.SHA256, a.Path, humanize.Bytes(a.Size), note)
	}
	fmt.Fprintf(w, "packed %s files into each archive (matrix.csv: %s rows) in %.1fs\n",
		humanize.Count(int64(res.Entries)), humanize.Count(int64(res.MatrixRows)), res.Duration.Seconds())
	return nil
}

// sourceDateEpoch returns the time of SOURCE_DATE_EPOCH, or zero (the pack's default) when
// it is unset.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	// Zip stores MS-DOS times: 1980 to 2107.
	if err != nil || n < 315532800 || n > 4354819199 {
		return time.Time{}, usageErrorf("SOURCE_DATE_EPOCH=%q is not a Unix time between 1980 and 2107", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

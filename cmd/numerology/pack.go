package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/generator"
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
		Short: "Pack a generated tree as the offline dataset (tables as CSV, Parquet and SQLite; records as JSON Lines)",
		Long: `pack builds the dataset's downloads from a generated tree (docs/dataset.md):

  numerology-dataset-<api_version>.zip  every table as csv/<table>.csv and
      parquet/<table>.parquet, numerology.sqlite (every table, with keys, and a meta
      table), the JSON of the routes without a date under api/public/, datapackage.json
      (Frictionless Data Package 2.0), CITATION.cff, LICENSE, README.md and SHA256SUMS;
  <route>.jsonl.gz  for every date route, its records, the bytes the API serves, one a
      line in date order (its packed files joined).

The per-date files are not in the dataset: numerology generate makes them again, byte for
byte. Every download is reproducible: packing the same tree twice gives byte-identical
files. The zip's times are SOURCE_DATE_EPOCH when set, otherwise 2000-01-01T00:00:00Z; the
date of SOURCE_DATE_EPOCH is also the content's date the database and datapackage.json
state (none without it).

With --publish (the default) pack also copies every download of at most 25 MiB (the
Workers static asset limit) into the tree's downloads/ and rewrites its manifest.json to
list them, so that numerology verify passes and the servers offer /downloads/…. It removes
only the downloads it published before (those the manifest lists); other files in
downloads/ stay, and a downloads/ that is a link (or a file) is refused (exit 5): pack
never writes or deletes outside the tree. A later generate replaces the tree, recognising
pack's files as its own: run pack again after it. A --to inside the tree is refused before
any work (exit 2): the downloads would be files its manifest does not list.`,
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
	f.StringVar(&opts.to, "to", "dist", "the directory to write the downloads to")
	f.StringVar(&opts.contentDir, "content", "", "the content the tree was generated from, instead of the built-in content")
	f.BoolVar(&opts.publish, "publish", true, "also place the downloads that fit in the tree's downloads/ and list them in its manifest")
	return cmd
}

// datasetContent returns the dataset's content for a site URL ("" for the content's own),
// from the content directory dir ("" for the built-in content).
func datasetContent(dir string) func(siteURL string) (*pack.Content, error) {
	return func(siteURL string) (*pack.Content, error) {
		site, err := loadSite(dir, siteURL)
		if err != nil {
			return nil, err
		}
		c := site.Content.Site
		return &pack.Content{
			Publisher: c.Publisher, Title: c.Title, LicenseName: c.LicenseName,
			Disclaimer: c.Disclaimer, DisclaimerEN: c.DisclaimerEN,
			Attribution: site.Attribution, AttributionHTML: site.AttributionHTML,
			Sources: generator.DatasetSources,
			Routes:  generator.Routes(),
			Render:  site.Renderer,
			Diff:    generator.JSONDiff,
		}, nil
	}
}

// packMemoryLimit is the soft limit of pack's Go heap: past it the collector runs more
// often rather than letting the heap double (issue 31: a peak RSS of at most 200 MB). What
// pack holds live is about half of it: the tables, and one file of the zip at a time.
const packMemoryLimit = 140 << 20

func runPack(ctx context.Context, cmd *cobra.Command, opts *packOptions) error {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 { // GOMEMLIMIT, when set, is the user's
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(packMemoryLimit))
	}
	modTime, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	if err := checkPackTo(opts.to, opts.dir); err != nil {
		return err
	}
	contentDate := ""
	if !modTime.IsZero() {
		contentDate = modTime.Format(time.DateOnly)
	}
	bar := newProgress(cmd.ErrOrStderr(), "pack")
	res, err := pack.Pack(ctx, pack.Options{
		Dir: opts.dir, To: opts.to, Publish: opts.publish, ModTime: modTime, ContentDate: contentDate,
		Content:    datasetContent(opts.contentDir),
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
	var tables []string
	for _, t := range res.Tables {
		tables = append(tables, fmt.Sprintf("%s %s", t.Name, humanize.Count(int64(t.Rows))))
	}
	fmt.Fprintf(w, "packed %d tables (rows: %s) and %d files into the zip, and %d JSON Lines downloads, in %.1fs\n",
		len(res.Tables), strings.Join(tables, ", "), res.Entries, len(res.Archives)-1, res.Duration.Seconds())
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

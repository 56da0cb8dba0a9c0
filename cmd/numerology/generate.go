package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/contract"
	"github.com/opennumerology/numerology/internal/humanize"
)

type generateOptions struct {
	out        string
	contentDir string
	siteURL    string
	from, to   int
	years      string
	workers    int
	force      bool
	plan       string
}

func newGenerateCmd() *cobra.Command {
	opts := &generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Render every API response into the out/ tree with its manifest",
		Long: `generate validates the content and renders every API response — the life path list
and records, the records of every date route for every date, every error body — into a
tree of static files, with manifest.json (route table, header sets, sha256 and size of
every file), api/public/edge.json and _headers.

Before it writes anything it checks the route budget: the files a deploy of the tree would
upload fit the Workers plan of --plan (files per version), and none can pass 5 MiB. A route
table that does not fit is refused (exit 7), naming the routes and the limit.

The tree is written into a temporary sibling directory and swapped in only when it is
complete: a failed or interrupted run leaves the previous tree as it was, and the next run
removes what a killed one left (only folders that carry generate's marker file, never
anything else beside --out). A running numerology serve follows the swap.

--out is replaced only when it does not exist, is empty, or is a tree generate made: its
manifest.json carries "generator": "numerology generate", its entries are valid, and the
files in it are exactly the listed ones with their listed sizes (what pack publishes in
downloads/ is listed too). Otherwise generate refuses before it touches anything (exit 5)
and says why, naming the files: files the manifest does not list (your own, added by
hand), listed files of another size, missing ones. --force replaces such a tree anyway
and names the files it deleted; a folder that is not generate's tree at all is refused
even with --force. An --out that is the current directory, or holds it, is refused
before any work (exit 2).`,
		Example: `  numerology generate
  numerology generate --out /srv/api --site-url https://numerology.example.org
  numerology generate --from 1990 --to 1999          # a small tree for tests
  numerology generate --years 1900,2000-2001,2100    # the edges and a few years
  numerology generate --force                        # replace out/ even with files added by hand`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGenerate(cmd.Context(), cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.out, "out", "o", "out", "the tree to write (replaced as a whole)")
	f.StringVar(&opts.contentDir, "content", "", "read content from this directory instead of the built-in content")
	f.StringVar(&opts.siteURL, "site-url", "", "the site's absolute URL, overriding site_url of site.yaml")
	f.IntVar(&opts.from, "from", rules.FirstYear, "first year of the records of every date route")
	f.IntVar(&opts.to, "to", rules.LastYear, "last year of the records of every date route")
	f.StringVar(&opts.years, "years", "", "years of the records of every date route, as a list of years and ranges (1900,2000-2002,2100); excludes --from/--to")
	f.IntVar(&opts.workers, "workers", 0, "goroutines that render and write files (0: twice the CPUs)")
	f.BoolVar(&opts.force, "force", false, "replace a tree generate made even if it holds files its manifest does not list (they are deleted and named)")
	f.StringVar(&opts.plan, "plan", "free", "the Workers plan the tree must fit, for the route budget: free or paid")
	cmd.MarkFlagsMutuallyExclusive("years", "from")
	cmd.MarkFlagsMutuallyExclusive("years", "to")
	return cmd
}

func runGenerate(ctx context.Context, cmd *cobra.Command, opts *generateOptions) error {
	years, err := parseYears(opts)
	if err != nil {
		return err
	}
	plan, ok := contract.PlanNamed(opts.plan)
	if !ok {
		return usageErrorf("--plan: %q is not a Workers plan: free or paid", opts.plan)
	}
	if err := checkOut(opts.out); err != nil {
		return err
	}
	site, err := loadSite(opts.contentDir, opts.siteURL)
	if err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), "generate")
	sum, err := generator.Generate(ctx, generator.Options{
		Site: site, Out: opts.out, Years: years, Workers: opts.workers, OnProgress: bar.Func(), Force: opts.force, Plan: plan,
	})
	bar.Done()
	if err != nil {
		if errors.Is(err, generator.ErrRange) {
			return err // a flag's message stands alone
		}
		return fmt.Errorf("generate: %w", err) // exitTable classifies it
	}
	if n := len(sum.Deleted); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "numerology: --force: deleted %d file(s) of %s that generate had not written:\n", n, opts.out)
		for _, p := range sum.Deleted {
			fmt.Fprintln(cmd.ErrOrStderr(), "  "+p)
		}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "generated %s files, %s in %.1fs → %s\n",
		humanize.Count(int64(sum.Files)), humanize.Bytes(sum.Bytes), sum.Duration.Seconds(), opts.out)
	return nil
}

// parseYears turns --from/--to or --years into the list of years.
func parseYears(opts *generateOptions) ([]int, error) {
	if opts.years == "" {
		years, err := generator.YearRange(opts.from, opts.to)
		if err != nil {
			return nil, usageErrorf("--from/--to: %s", rangeDetail(err))
		}
		return years, nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(opts.years, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		from, err1 := strconv.Atoi(lo)
		to, err2 := from, error(nil)
		if isRange {
			to, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil {
			return nil, usageErrorf("--years: %q is not a year or a range of years", part)
		}
		r, err := generator.YearRange(from, to)
		if err != nil {
			return nil, usageErrorf("--years: %s", rangeDetail(err))
		}
		for _, y := range r {
			seen[y] = true
		}
	}
	var years []int
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		if seen[y] {
			years = append(years, y)
		}
	}
	return years, nil
}

// rangeDetail is a range error's message without the generic "years out of range: ".
func rangeDetail(err error) string {
	return strings.TrimPrefix(err.Error(), generator.ErrRange.Error()+": ")
}

// loadSite loads the content (built in, or from dir) and applies the site URL override.
func loadSite(dir, siteURL string) (*generator.Site, error) {
	load := generator.EmbeddedContent
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, usageErrorf("--content: %s is not a directory", dir)
		}
		load = func() (*content.Content, error) { return generator.LoadContent(os.DirFS(dir), dir) }
	}
	c, err := load()
	if err != nil {
		return nil, err // content.Errors: exit 3 by exitTable
	}
	site, err := generator.NewSite(c, siteURL)
	if err != nil {
		return nil, usageErrorf("--site-url: %v", errors.Unwrap(err))
	}
	return site, nil
}

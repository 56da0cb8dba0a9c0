package generator

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
	"github.com/opennumerology/numerology/internal/humanize"
)

// BudgetError is a route table whose tree would break a limit of a Workers plan (docs/design.md
// §13, the route budget): its deploy would fail, so generate refuses it before it writes
// anything. Each problem names the route or the file and the limit.
type BudgetError struct {
	Plan     contract.Plan
	Problems []string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the tree of this route table would not deploy on %s (--plan %s):\n  %s",
		e.Plan.Title, e.Plan.Name, strings.Join(e.Problems, "\n  "))
}

// prerendered holds every file of the tree but the date routes' records, rendered before
// anything is written: the budget counts and measures them, and the run writes them.
type prerendered struct {
	files []pageFile
}

// prerender renders the files of the routes without packed files (one per value), the MCP
// config and the pages, in the order they are written.
func (s *Site) prerender(ctx context.Context, years []int, encs map[string]encodeFunc) (*prerendered, error) {
	pre := &prerendered{}
	for _, r := range s.routes() {
		if r.Packed != nil {
			continue
		}
		enc := encs[r.Name]
		for _, vals := range r.Values(years) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			b, err := enc(nil, vals)
			if err != nil {
				return nil, fmt.Errorf("render %s %s: %w", r.Name, valuesLabel(vals), err)
			}
			pre.files = append(pre.files, pageFile{r.FilePath(vals), b})
		}
	}
	mcp, err := s.MCPFileBody()
	if err != nil {
		return nil, err
	}
	pre.files = append(pre.files, pageFile{manifest.MCPFile, mcp})
	pages, err := renderPages(s)
	if err != nil {
		return nil, err
	}
	pre.files = append(pre.files, pages...)
	return pre, nil
}

// uploadLimit is contract.MaxUploadedFile as people read it.
var uploadLimit = fmt.Sprintf("%d MiB", contract.MaxUploadedFile>>20)

// packedLines is how many records a packed file of the route holds at most: the days of a
// month, or of a year.
func packedLines(r manifest.Route) int {
	if r.Packed.Unit == manifest.UnitMonth {
		return 31
	}
	return 366
}

// packedFiles is how many packed files the route has in the years: twelve a year by month,
// one by year.
func packedFiles(r manifest.Route, years []int) int {
	if r.Packed.Unit == manifest.UnitMonth {
		return 12 * len(years)
	}
	return len(years)
}

// checkBudget checks that the tree of the site's route table for the years fits the plan:
// the files a deploy uploads — every route's packed files (a packed route's own files stay
// out, .assetsignore), the other routes' files, the pages and assets, edge.json, the
// manifest and the downloads pack adds — within the plan's files per version, and no such
// file over contract.MaxUploadedFile: a packed file is bounded by its lines times its
// route's largest record (renderer.maxBytes, held by the encoder), the others by their
// rendered size. Nothing is written before it passes.
func (s *Site) checkBudget(years []int, plan contract.Plan, pre *prerendered) error {
	var problems []string
	rs := s.renderers()
	type share struct {
		route string
		files int
	}
	var shares []share
	files := 2 + len(Downloads()) // edge.json, manifest.json and the archives pack publishes
	for _, r := range s.routes() {
		if r.Packed == nil {
			continue
		}
		n := packedFiles(r, years)
		files += n
		shares = append(shares, share{r.Name, n})
		max := int64(packedLines(r)) * int64(rs[r.Name].maxBytes)
		if max > contract.MaxUploadedFile {
			problems = append(problems, fmt.Sprintf("route %s: a packed file holds up to %d records of up to %s bytes, %s bytes, over the %s an uploaded file may have: pack it by month, or keep its records smaller",
				r.Name, packedLines(r), humanize.Count(int64(rs[r.Name].maxBytes)), humanize.Count(max), uploadLimit))
		}
	}
	files += len(pre.files)
	for _, f := range pre.files {
		if int64(len(f.body)) > contract.MaxUploadedFile {
			problems = append(problems, fmt.Sprintf("%s: %s bytes, over the %s an uploaded file may have",
				f.path, humanize.Count(int64(len(f.body))), uploadLimit))
		}
	}
	if files > plan.MaxFiles {
		slices.SortStableFunc(shares, func(a, b share) int { return b.files - a.files })
		var parts []string
		for _, sh := range shares {
			parts = append(parts, fmt.Sprintf("%s %s", sh.route, humanize.Count(int64(sh.files))))
		}
		problems = append(problems, fmt.Sprintf("%s files would be uploaded, over the %s a version may hold on %s; the date routes' packed files: %s. Pack some date routes by year (one file a year instead of twelve), generate fewer years, or deploy on a larger plan",
			humanize.Count(int64(files)), humanize.Count(int64(plan.MaxFiles)), plan.Title, strings.Join(parts, ", ")))
	}
	if len(problems) > 0 {
		return &BudgetError{Plan: plan, Problems: problems}
	}
	return nil
}

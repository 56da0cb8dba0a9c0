package pack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/calendar"
)

// MaxRecordLine is the longest line a JSON Lines download may hold: far more than any
// record's bound (a date route's maxBytes).
const MaxRecordLine = 1 << 20

// isJSONLines reports whether the gzip file f holds JSON Lines (its first byte is a '{')
// rather than a tar, and rewinds it.
func isJSONLines(f *os.File) bool {
	defer f.Seek(0, io.SeekStart)
	gz, err := kgzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return false
	}
	var b [1]byte
	n, _ := io.ReadFull(gz, b[:])
	return n == 1 && b[0] == '{'
}

// dateOf is a record's date: its input's day, month and year.
type dateOf struct{ d, m, y int }

func (d dateOf) String() string { return fmt.Sprintf("%02d.%02d.%04d", d.d, d.m, d.y) }

// next is the day after d.
func (d dateOf) next() dateOf {
	switch {
	case d.d < calendar.DaysIn(d.m, d.y):
		return dateOf{d.d + 1, d.m, d.y}
	case d.m < 12:
		return dateOf{1, d.m + 1, d.y}
	}
	return dateOf{1, 1, d.y + 1}
}

// lineDate reads the date of a record of a date route: the day, month and year of its
// "input", the first field of every such record (docs/design.md §5).
func lineDate(line []byte) (dateOf, bool) {
	var r struct {
		Input *struct {
			Day   int `json:"day"`
			Month int `json:"month"`
			Year  int `json:"year"`
		} `json:"input"`
	}
	if d, ok := scanInput(line); ok {
		return d, true
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Input == nil {
		return dateOf{}, false
	}
	return dateOf{r.Input.Day, r.Input.Month, r.Input.Year}, true
}

// scanInput reads `{"input":{"day":D,"month":M,"year":Y}` at the start of a line.
func scanInput(b []byte) (d dateOf, ok bool) {
	for _, f := range []struct {
		before string
		dst    *int
	}{{`{"input":{"day":`, &d.d}, {`,"month":`, &d.m}, {`,"year":`, &d.y}} {
		var found bool
		if b, found = bytes.CutPrefix(b, []byte(f.before)); !found {
			return d, false
		}
		n, i := 0, 0
		for ; i < len(b) && i < 5 && b[i] >= '0' && b[i] <= '9'; i++ {
			n = n*10 + int(b[i]-'0')
		}
		if i == 0 || i == 5 {
			return d, false
		}
		*f.dst, b = n, b[i:]
	}
	return d, len(b) > 0 && b[0] == '}'
}

// jsonlCheck is the state of a JSON Lines download's check.
type jsonlCheck struct {
	*archiveCheck
	name   string
	route  *manifest.Route
	render func(dst []byte, vals []int) ([]byte, error)
	diff   func(got, want []byte) string
	first  int // year bounds of the date routes
	last   int
	prev   dateOf // the date of the previous record, zero before the first
	want   []byte
}

// checkJSONL checks a JSON Lines download of a date route: one record a line, each the
// bytes the route renders for its date, in date order, whole years of the range. The
// route is the one its name says (<route>.jsonl.gz) or, renamed, the one whose record of
// the first line's date is that line.
func (c *archiveCheck) checkJSONL(ctx context.Context, f *os.File, content func(string) (*Content, error)) error {
	if content == nil {
		return fmt.Errorf("%s: a JSON Lines download is checked against the content, and none was given", f.Name())
	}
	cont, err := content("")
	if err != nil {
		return err
	}
	j := &jsonlCheck{archiveCheck: c, name: filepath.Base(f.Name()), diff: cont.Diff}
	j.first, j.last = yearBounds(cont.Routes)
	c.rep.Top = j.name
	gz, err := kgzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name(), ErrNotArchive)
	}
	br := bufio.NewReaderSize(budgeted{gz, c}, 64<<10)
	var line []byte
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if c.progress != nil {
				c.progress(n, 0)
			}
		}
		var long bool
		line, long, err = readLine(br, line[:0])
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			c.readError(j.name, err, fmt.Sprintf("line %d", n))
			return nil
		}
		c.rep.Files++
		if long {
			c.add(ProblemInvalid, j.name, "line %d: longer than %d bytes, which no record is", n, MaxRecordLine)
			continue
		}
		if err := j.checkLine(n, line, cont); err != nil {
			return err
		}
		if j.route == nil {
			return nil // reported: the route could not be told
		}
	}
	switch {
	case c.rep.Files == 0:
		c.add(ProblemInvalid, j.name, "no records")
	case j.prev != (dateOf{}) && (j.prev.d != 31 || j.prev.m != 12):
		c.add(ProblemMissing, j.name, "the records end at %s: the last year is not whole", j.prev)
	}
	return nil
}

// readLine reads a line with its newline into buf, up to MaxRecordLine bytes; long is true
// (and the rest of the line skipped) for a longer one.
func readLine(br *bufio.Reader, buf []byte) (line []byte, long bool, err error) {
	for {
		part, err := br.ReadSlice('\n')
		if len(buf)+len(part) <= MaxRecordLine {
			buf = append(buf, part...)
		} else {
			long = true
		}
		if err != bufio.ErrBufferFull {
			return buf, long, err
		}
	}
}

// checkLine checks the record on line n: its date follows the previous one's, and it is
// the bytes its route renders for it.
func (j *jsonlCheck) checkLine(n int, line []byte, cont *Content) error {
	date, ok := lineDate(line)
	if !ok || !manifest.ValidDate(date.d, date.m, date.y, j.first, j.last) {
		j.add(ProblemInvalid, j.name, "line %d: not the record of a date of %d–%d", n, j.first, j.last)
		return nil
	}
	vals := []int{date.d, date.m, date.y}
	if j.route == nil {
		if err := j.findRoute(cont, vals, line); err != nil || j.route == nil {
			return err
		}
	}
	switch {
	case j.prev == (dateOf{}) && (date.d != 1 || date.m != 1):
		j.add(ProblemMissing, j.name, "line %d: the records start at %s: the first year is not whole", n, date)
	case j.prev != (dateOf{}) && date != j.prev.next() && !(date.d == 1 && date.m == 1 && date.y > j.prev.y && j.prev.d == 31 && j.prev.m == 12):
		j.add(ProblemInvalid, j.name, "line %d: %s after %s: the records are one a date, in date order, whole years", n, date, j.prev)
	}
	j.prev = date
	var err error
	if j.want, err = j.render(j.want[:0], vals); err != nil {
		return fmt.Errorf("route %s, %s: %w", j.route.Name, date, err)
	}
	if !bytes.Equal(line, j.want) {
		detail := "differs from what the route renders"
		if j.diff != nil {
			detail = j.diff(line, j.want)
		}
		j.add(ProblemCorrupt, j.name, "line %d (%s): %s", n, date, detail)
	}
	return nil
}

// findRoute tells the download's route: the date route its name names, else the one whose
// record of the first date is the first line.
func (j *jsonlCheck) findRoute(cont *Content, vals []int, line []byte) error {
	var candidates []manifest.Route
	for _, r := range cont.Routes {
		if r.Packed == nil {
			continue
		}
		if j.name == JSONLName(r.Name) {
			candidates = []manifest.Route{r}
			break
		}
		candidates = append(candidates, r)
	}
	for i := range candidates {
		render, err := cont.Render(candidates[i].Name)
		if err != nil {
			return err
		}
		want, err := render(nil, vals)
		if err != nil {
			return err
		}
		if len(candidates) == 1 || bytes.Equal(want, line) {
			j.route, j.render = &candidates[i], render
			j.rep.Top = candidates[i].Name
			return nil
		}
	}
	var names []string
	for _, r := range candidates {
		names = append(names, JSONLName(r.Name))
	}
	j.add(ProblemInvalid, j.name, "line 1 is no date route's record of its date; a download is named after its route: %s", strings.Join(names, ", "))
	return nil
}

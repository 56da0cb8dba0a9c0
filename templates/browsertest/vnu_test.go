package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/internal/testsupport"
)

// vnuJar is the Nu Html Checker, installed from this folder's package-lock.json by
// make test-tools (npm ci in templates/browsertest).
const vnuJar = "node_modules/vnu-jar/build/dist/vnu.jar"

// vnuAllowed are the checker's warnings a page may keep, each with the reason. It is empty:
// every warning vnu gives about these pages would be a real fault.
var vnuAllowed = map[string]string{}

// TestPagesValidHTML runs the Nu Html Checker over every HTML page of a generated tree, its
// CSS and SVG, and over the details page as the browser leaves it after drawing a date, a
// bad date, a date out of range, an unreadable value, no date and a 429 (and the chart's
// details page after a date and a bad date): no page may have
// an error or a warning (vnuAllowed lists the warnings judged harmless). It needs a Java
// runtime and the vnu-jar npm package (make test-tools installs both) and fails without
// them; only go test -short skips it.
func TestPagesValidHTML(t *testing.T) {
	java, jar := vnuTools(t)
	ctx := newTab(t)
	t.Parallel()
	tree := testTree(t)

	var files []string
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && slices.Contains([]string{".html", ".css", ".svg"}, filepath.Ext(p)) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := countExt(files, ".html"); n < 17 {
		t.Fatalf("only %d pages in the tree", n)
	}

	// The details page as drawn: the script adds the diagram, the explanations and the
	// messages, and that markup must be valid too.
	srv := serveTree(t, tree, 0, nil)
	limited := serveTree(t, tree, 1, nil)
	rendered := t.TempDir()
	for _, s := range []struct{ name, first, url, done string }{
		{name: "date", url: srv.URL + "/matrix/details?date=" + vectorDate, done: `#api-status[data-state="ok"]`},
		{name: "bad-date", url: srv.URL + "/matrix/details?date=1990-02-30", done: `#status[data-state="bad-date"]`},
		{name: "out-of-range", url: srv.URL + "/matrix/details?date=1899-12-31", done: `#status[data-state="bad-date"]`},
		{name: "unreadable", url: srv.URL + "/matrix/details?date=15%2F05%2F1990", done: `#status[data-state="bad-date"]`},
		{name: "empty", url: srv.URL + "/matrix/details", done: `#status[data-state="empty"]`},
		{name: "rate-limit", first: limited.URL + "/matrix/details?date=" + vectorDate,
			url: limited.URL + "/matrix/details?date=1990-05-16", done: `#api-status[data-state="rate-limit"]`},
		{name: "chart-date", url: srv.URL + "/chart/details?date=" + vectorDate, done: `#api-status[data-state="ok"]`},
		{name: "chart-bad-date", url: srv.URL + "/chart/details?date=1990-02-30", done: `#status[data-state="bad-date"]`},
	} {
		if s.first != "" {
			do(t, ctx, chromedp.Navigate(s.first), chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="ok"]`)))
		}
		do(t, ctx, chromedp.Navigate(s.url), chromedp.WaitReady(chromedp.CSS(s.done)))
		if title := eval[string](t, ctx, `document.title`); utf8.RuneCountInString(title) > 70 {
			t.Errorf("details page, %s: the title the script sets has %d characters, more than 70: %s", s.name, utf8.RuneCountInString(title), title)
		}
		page := eval[string](t, ctx, `"<!DOCTYPE html>\n" + document.documentElement.outerHTML`)
		f := filepath.Join(rendered, "details-"+s.name+".html")
		if err := os.WriteFile(f, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}

	msgs := runVNU(t, java, jar, files)
	for _, m := range msgs {
		where := m.URL
		for _, dir := range []string{tree, rendered} {
			if rel, err := filepath.Rel(dir, strings.TrimPrefix(m.URL, "file:")); err == nil && !strings.HasPrefix(rel, "..") {
				where = rel
			}
		}
		text := fmt.Sprintf("%s:%d: %s", where, m.LastLine, m.Type)
		if m.SubType != "" {
			text += " (" + m.SubType + ")"
		}
		text += ": " + m.Message
		if m.Extract != "" {
			text += "\n\t" + strings.TrimSpace(m.Extract)
		}
		switch {
		case m.Type == "error", m.Type == "non-document-error":
			t.Error(text)
		case m.SubType == "warning" && vnuAllowed[m.Message] == "":
			t.Error(text)
		default:
			t.Log(text)
		}
	}
	t.Logf("vnu checked %d files: %d messages", len(files), len(msgs))
}

// vnuJVM are the Java options of the checker's one run: the client compiler alone (C1)
// halves the CPU time of a run this short and gives the same messages; its deeper stack
// frames need the larger thread stack, or the HTML schema overflows it.
var vnuJVM = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m"}

// vnuMessage is one message of vnu's JSON output.
type vnuMessage struct {
	Type     string `json:"type"`    // "error", "info" or "non-document-error"
	SubType  string `json:"subType"` // "warning" for an info that is a warning, "fatal", "io", …
	URL      string `json:"url"`
	LastLine int    `json:"lastLine"`
	Message  string `json:"message"`
	Extract  string `json:"extract"`
}

// runVNU checks files with the Nu Html Checker and returns its messages.
func runVNU(t *testing.T, java, jar string, files []string) []vnuMessage {
	t.Helper()
	args := append(append(slices.Clone(vnuJVM), "-jar", jar, "--format", "json", "--stdout", "--exit-zero-always",
		"--also-check-css", "--also-check-svg"), files...)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(java, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("vnu: %v\n%s", err, stderr.String())
	}
	var out struct {
		Messages []vnuMessage `json:"messages"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("vnu output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	return out.Messages
}

// vnuTools finds java and vnu.jar, or fails with what to run; go test -short skips.
func vnuTools(t *testing.T) (java, jar string) {
	t.Helper()
	testsupport.SkipShort(t, "the Nu Html Checker needs Java")
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not found: run make test-tools (apt-get install default-jre-headless)")
	}
	jar, err = filepath.Abs(vnuJar)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jar); err != nil {
		t.Fatalf("vnu.jar not found: run make test-tools (npm ci in templates/browsertest): %v", err)
	}
	return java, jar
}

func countExt(files []string, ext string) int {
	n := 0
	for _, f := range files {
		if filepath.Ext(f) == ext {
			n++
		}
	}
	return n
}

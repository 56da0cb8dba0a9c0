package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestMain lets testscript run the real command as "numerology" in scripts, and checks and
// removes the shared tree after the tests.
func TestMain(m *testing.M) {
	testscript.Main(sharedChecked{m}, map[string]func(){
		"numerology": func() { os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// sharedChecked runs the tests with their scratch on a memory file system when there is one
// (testsupport.MemoryTempDir), then fails the run if one of them changed the shared tree.
type sharedChecked struct{ m *testing.M }

func (s sharedChecked) Run() int {
	defer testsupport.MemoryTempDir()()
	code := s.m.Run()
	if err := checkShared(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	return code
}

// TestScripts runs testdata/script/*.txtar. Besides testscript's commands, "sharedtree dir"
// puts a copy of the shared year-2000 tree at dir.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sharedtree": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: sharedtree dir")
				}
				r, err := shared()
				ts.Check(err)
				ts.Check(generatortest.LinkTree(r.dir, ts.MkAbs(args[0]), nil))
			},
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, nil
		},
	})
}

// run runs the command in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := t.TempDir() // a manifest that does not parse
	if err := os.WriteFile(filepath.Join(bad, "manifest.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr []string // each must appear, in order
	}{
		{
			name:       "year before the range",
			args:       []string{"generate", "--from", "1899", "--out", filepath.Join(dir, "a")},
			wantCode:   exitUsage,
			wantStderr: []string{"numerology: --from/--to: 1899–2100 is outside 1900–2100\n"},
		},
		{
			name:       "year list after the range",
			args:       []string{"generate", "--years", "2000,2101", "--out", filepath.Join(dir, "b")},
			wantCode:   exitUsage,
			wantStderr: []string{"numerology: --years: 2101 is outside 1900–2100\n"},
		},
		{
			name:       "unknown flag",
			args:       []string{"generate", "--frm", "1900"},
			wantCode:   exitUsage,
			wantStderr: []string{"numerology: unknown flag: --frm\n"},
		},
		{
			name:     "two content errors in two files, sorted",
			args:     []string{"generate", "--content", "../../content/testdata/two-errors", "--out", filepath.Join(dir, "c")},
			wantCode: exitContent,
			wantStderr: []string{
				`../../content/testdata/two-errors/arcana.yaml:9: [1].emoji: "🌙🌙" is 2 characters, want exactly one emoji`,
				"../../content/testdata/two-errors/life-path/3.yaml:20: famous_people[1].born: 1990-05-16 (Человек 3-1) gives life path 4, not 3",
			},
		},
		{
			name:       "verify without a tree",
			args:       []string{"verify", "--dir", filepath.Join(dir, "none")},
			wantCode:   exitIO,
			wantStderr: []string{"no manifest (run numerology generate first)"},
		},
		{
			name:       "serve without a tree",
			args:       []string{"serve", "--dir", filepath.Join(dir, "none")},
			wantCode:   exitIO,
			wantStderr: []string{"no manifest (run numerology generate first)"},
		},
		{
			name:       "deploy without a tree",
			args:       []string{"deploy", "--dry-run", "--dir", filepath.Join(dir, "none")},
			wantCode:   exitIO,
			wantStderr: []string{"no manifest (run numerology generate first)"},
		},
		{
			name:       "verify of an invalid manifest",
			args:       []string{"verify", "--dir", bad},
			wantCode:   exitVerify,
			wantStderr: []string{"parse manifest"},
		},
		{
			name:       "deploy of an invalid manifest",
			args:       []string{"deploy", "--dry-run", "--dir", bad},
			wantCode:   exitVerify,
			wantStderr: []string{"parse manifest"},
		},
		{
			name:       "pack without a tree",
			args:       []string{"pack", "--dir", filepath.Join(dir, "none"), "--to", filepath.Join(dir, "none", "dist")},
			wantCode:   exitIO,
			wantStderr: []string{"no manifest (run numerology generate first)"},
		},
		{
			name:       "bad site URL",
			args:       []string{"generate", "--site-url", "numerology.example/", "--out", filepath.Join(dir, "d")},
			wantCode:   exitUsage,
			wantStderr: []string{"--site-url:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstderr: %s", code, tt.wantCode, stderr)
			}
			rest := stderr
			for _, w := range tt.wantStderr {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order)\nstderr: %s", w, stderr)
				}
				rest = rest[i+len(w):]
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs left %d entries behind", len(entries))
	}
}

func TestHelpDocumentsExitCodes(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"generate", "--help"}, {"verify", "--help"}} {
		code, stdout, _ := run(t, args...)
		if code != 0 || !strings.Contains(stdout, "Exit codes:") || !strings.Contains(stdout, "5    the output cannot be written") {
			t.Errorf("%v: code %d, help lacks the exit code table:\n%s", args, code, stdout)
		}
	}
}

// TestGenerateAndVerify checks the shared tree's generate (one summary line, nothing on
// stderr), verify of it, and verify of a damaged copy naming what is missing and extra.
func TestGenerateAndVerify(t *testing.T) {
	t.Parallel()
	r, err := shared()
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || !strings.HasPrefix(r.stdout, "generated ") || r.stderr != "" {
		t.Fatalf("generate: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("summary is not one line: %q", r.stdout)
	}
	if code, stdout, stderr := run(t, "verify", "--dir", r.dir); code != 0 || !strings.HasPrefix(stdout, "verified ") {
		t.Fatalf("verify: code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	out := treeCopy(t)
	if err := os.Remove(filepath.Join(out, "api/public/matrix/31/12/2000.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, "stray.txt"), []byte("x"))
	code, stdout, stderr := run(t, "verify", "--dir", out)
	if code != exitVerify {
		t.Fatalf("verify of a damaged tree: code %d, want %d", code, exitVerify)
	}
	for _, w := range []string{"missing: api/public/matrix/31/12/2000.json", "extra: stray.txt"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("verify output lacks %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "2 problem(s) found") {
		t.Errorf("stderr = %q", stderr)
	}
}

// TestParseYears checks --years and --from/--to as the list of years generate writes.
func TestParseYears(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts generateOptions
		want []int
	}{
		{generateOptions{years: "1900,2100"}, []int{1900, 2100}},
		{generateOptions{years: "2100, 1900-1901,1900"}, []int{1900, 1901, 2100}},
		{generateOptions{from: 1999, to: 2001}, []int{1999, 2000, 2001}},
	}
	for _, tt := range tests {
		got, err := parseYears(&tt.opts)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v, %v; want %v", tt.opts, got, err, tt.want)
		}
	}
}

// TestVerifyWithContent: a tree generated from other content is checked against that
// content with --content; against the built-in content its records differ, named by field.
func TestVerifyWithContent(t *testing.T) {
	t.Parallel()
	const dir = "../../content/testdata/valid"
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := run(t, "generate", "--years", "2000", "--content", dir, "--out", out); code != 0 {
		t.Fatalf("generate: code %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, "verify", "--dir", out, "--content", dir); code != 0 {
		t.Fatalf("verify --content: code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ := run(t, "verify", "--dir", out)
	if code != exitVerify || !strings.Contains(stdout, "invalid: api/public/life-path/1.json: field ") {
		t.Fatalf("verify against the built-in content: code %d, want %d and the life path record's field named:\n%.2000s", code, exitVerify, stdout)
	}
	if code, _, stderr := run(t, "verify", "--dir", out, "--content", "no-such-dir"); code != exitUsage || !strings.Contains(stderr, "--content") {
		t.Errorf("verify --content of a missing directory: code %d, stderr %q", code, stderr)
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// loadErr is the error of manifest.Load on a directory whose manifest.json holds body, or
// has none when body is empty.
func loadErr(t *testing.T, body string) error {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := manifest.Load(dir)
	if err == nil {
		t.Fatal("manifest.Load succeeded")
	}
	return err
}

// TestREADMEExitCodes checks the README's exit-code table against exitTable, row by row.
func TestREADMEExitCodes(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := exitCodeMarkdown()
	if !strings.Contains(string(b), want) {
		t.Errorf("README.md lacks the exit-code table of exitTable; want:\n%s", want)
	}
}

// TestExitCodeHelp checks that --help lists every row of the table.
func TestExitCodeHelp(t *testing.T) {
	code, stdout, _ := run(t, "--help")
	if code != 0 {
		t.Fatalf("--help: code %d", code)
	}
	for _, r := range exitTable {
		if !strings.Contains(stdout, r.meaning) {
			t.Errorf("--help lacks %d %q", r.code, r.meaning)
		}
	}
}

// TestExitCodeKinds checks the classification of each error kind, including codes a
// command marked that a kind overrides.
func TestExitCodeKinds(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"plain", errors.New("x"), exitError},
		{"no manifest, marked 4 by a command", withCode(exitVerify, loadErr(t, "")), exitIO},
		{"invalid manifest, marked 5 by a command", withCode(exitIO, loadErr(t, "{")), exitVerify},
		{"interrupted while marked 5", withCode(exitIO, fmt.Errorf("x: %w", context.Canceled)), exitInterrupted},
		{"marked usage", usageErrorf("x"), exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

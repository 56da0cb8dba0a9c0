package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/edge/cloudflare"
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
	t.Parallel()
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
	t.Parallel()
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

// deployErr wraps err as runDeploy returns it.
func deployErr(err error) error { return fmt.Errorf("deploy: %w", err) }

// TestExitCodeKinds checks the classification of each error kind, including codes a
// command marked that a kind overrides: each kind gets its code from exitTable alone.
func TestExitCodeKinds(t *testing.T) {
	t.Parallel()
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
		{"a bad flag value", usageErrorf("x"), exitUsage},
		{"a bad flag value, marked 5", withCode(exitIO, usageErrorf("x")), exitUsage},
		{"deploy: options that do not fit", deployErr(&cloudflare.UsageError{Msg: "x"}), exitUsage},
		{"deploy: a tree that changed", deployErr(&cloudflare.TreeError{Mismatch: true, Err: errors.New("x")}), exitVerify},
		{"deploy: a tree that cannot be read", deployErr(&cloudflare.TreeError{Err: errors.New("x")}), exitIO},
		{"deploy: no manifest", deployErr(&cloudflare.TreeError{Err: loadErr(t, "")}), exitIO},
		{"deploy: an invalid manifest", deployErr(&cloudflare.TreeError{Err: loadErr(t, "{")}), exitVerify},
		{"deploy: a file the worker reads left out", deployErr(&cloudflare.WorkerFilesError{}), exitVerify},
		{"deploy: a rejected token", deployErr(&cloudflare.AuthError{Status: 403}), exitAuth},
		{"deploy: a zone the token cannot see", deployErr(&cloudflare.ZoneAccessError{Status: 403}), exitAuth},
		{"deploy: over the plan", deployErr(&cloudflare.LimitError{}), exitLimit},
		{"deploy: no workers.dev subdomain", deployErr(&cloudflare.SubdomainError{}), exitSubdomain},
		{"deploy: a taken workers.dev subdomain", deployErr(&cloudflare.SubdomainError{Taken: true}), exitSubdomain},
		{"deploy: a config Cloudflare refuses", deployErr(&cloudflare.ConfigError{}), exitError},
		{"deploy: another Worker's domain", deployErr(&cloudflare.DomainConflictError{}), exitError},
		{"deploy: another Worker's route", deployErr(&cloudflare.RouteConflictError{}), exitError},
		{"deploy: an expired upload token", deployErr(&cloudflare.ExpiredError{}), exitError},
		{"deploy: interrupted", deployErr(fmt.Errorf("upload: %w", context.Canceled)), exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

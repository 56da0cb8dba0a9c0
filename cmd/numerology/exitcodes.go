package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack"
)

// Exit codes (docs/design.md §1). exitTable says what each means and which errors give it.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitContent     = 3
	exitVerify      = 4
	exitIO          = 5
	exitAuth        = 6
	exitLimit       = 7
	exitSubdomain   = 8
	exitInterrupted = 130
)

// exitRow is one row of the exit-code table: a code, its meaning for --help and the README,
// and the error kinds that give it, whichever command meets them.
type exitRow struct {
	code    int
	meaning string
	is      func(error) bool // nil: only a codedError of this code (or the default)
}

// exitTable is the one table from errors to exit codes. An error takes the first row, in
// this order, whose kind it is; only an error of no kind takes the code a command marked
// it with (withCode), else 1. A missing manifest is 5 in every command: there is no tree
// to read, which is not the same failure as 4, a tree that differs from its manifest.
var exitTable = []exitRow{
	{exitOK, "success", nil},
	{exitError, "any other failure", nil},
	{exitUsage, "bad command line (unknown flag, bad value, years outside 1900–2100)", func(err error) bool {
		var (
			u *cloudflare.UsageError
			c *usageError
		)
		return errors.Is(err, generator.ErrRange) || errors.As(err, &u) || errors.As(err, &c)
	}},
	{exitContent, "the content does not validate (every problem is printed as file:line: field: message)", func(err error) bool {
		var c content.Errors
		return errors.As(err, &c)
	}},
	{exitVerify, "a tree or archive does not match its manifest, or a deploy of it would lack a file the worker reads", func(err error) bool {
		var (
			t *cloudflare.TreeError
			w *cloudflare.WorkerFilesError
			p *problemsError
		)
		return !errors.Is(err, manifest.ErrNoManifest) &&
			(errors.Is(err, manifest.ErrInvalid) || errors.Is(err, manifest.ErrMismatch) || errors.As(err, &t) && t.Mismatch || errors.As(err, &w) || errors.As(err, &p))
	}},
	{exitIO, "the output cannot be written, or the input tree cannot be read (no manifest.json: generate first)", func(err error) bool {
		var (
			gen *generator.IOError
			in  *pack.InputError
			out *pack.OutputError
			t   *cloudflare.TreeError
		)
		return errors.Is(err, manifest.ErrNoManifest) || errors.As(err, &gen) || errors.As(err, &in) ||
			errors.As(err, &out) || errors.As(err, &t) && !t.Mismatch
	}},
	{exitAuth, "Cloudflare rejected the credentials (for the account, or a zone of --route), or they are missing", func(err error) bool {
		var (
			a *cloudflare.AuthError
			z *cloudflare.ZoneAccessError
		)
		return errors.As(err, &a) || errors.As(err, &z)
	}},
	{exitLimit, "the tree exceeds the Cloudflare plan's limits (deploy), or would (generate's route budget)", func(err error) bool {
		var (
			l *cloudflare.LimitError
			b *generator.BudgetError
		)
		return errors.As(err, &l) || errors.As(err, &b)
	}},
	{exitSubdomain, "the Cloudflare account has no workers.dev subdomain yet (deploy --workers-subdomain NAME registers one), or that name is taken", func(err error) bool {
		var s *cloudflare.SubdomainError
		return errors.As(err, &s)
	}},
	{exitInterrupted, "interrupted (Ctrl-C); the previous output is left intact", func(err error) bool {
		return errors.Is(err, context.Canceled)
	}},
}

// exitCode classifies err by exitTable.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		return exitInterrupted // before any kind: an interrupted deploy may also hold a tree error
	}
	for _, r := range exitTable {
		if r.is != nil && r.is(err) {
			return r.code
		}
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}

// exitCodeHelp is the table as --help prints it.
func exitCodeHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, r := range exitTable {
		fmt.Fprintf(&b, "\n  %-4s %s", strconv.Itoa(r.code), r.meaning)
	}
	return b.String()
}

// exitCodeMarkdown is the table as the README lists it.
func exitCodeMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, r := range exitTable {
		fmt.Fprintf(&b, "| %d | %s |\n", r.code, r.meaning)
	}
	return b.String()
}

package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress shows a progress bar on w when w is a terminal.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a progress bar on w, or nil (a no-op) when w is not a terminal: CI
// logs get the summary line only.
func newProgress(w io.Writer, description string) *progress {
	if !isTerminal(w) {
		return nil
	}
	return &progress{bar: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)}
}

// Update sets done out of total; it is safe on a nil progress.
func (p *progress) Update(done, total int) {
	if p == nil {
		return
	}
	if p.bar.GetMax() != total {
		p.bar.ChangeMax(total)
	}
	p.bar.Set(done)
}

// Func returns Update as a callback, or nil for a nil progress.
func (p *progress) Func() func(done, total int) {
	if p == nil {
		return nil
	}
	return p.Update
}

// Done clears the bar.
func (p *progress) Done() {
	if p != nil {
		p.bar.Finish()
	}
}

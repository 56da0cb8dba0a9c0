package server

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/conformance"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
)

// conformanceTarget is the shared suite's target of the server of dir with the given rate
// window, its limiter on a clock of its own that the suite moves on instead of sleeping
// (jumpClock): the short-window runs wait for no Retry-After on the real clock.
func conformanceTarget(t *testing.T, dir string, window time.Duration) conformance.Target {
	t.Helper()
	clock := newJumpClock()
	h := newWindowHandler(t, dir, clock.Now, window)
	return conformance.Target{
		BaseURL: startServer(t, h), TreeDir: dir,
		RateLimit: h.limiter.limit, RateWindow: time.Duration(h.limiter.window),
		ClientHeader: "X-Test-Client", ExactRetryAfter: true, Clock: clock,
	}
}

// jumpClock is a fake clock shared by a server's limiter and the conformance suite: its time
// stands still but for Sleep, which moves it on at once. All the requests of a burst then
// fall at one instant of the limiter's window, whatever the machine's load, unless another
// test sleeps meanwhile: that jump is on the clock the suite measures the burst with, so a
// burst it spoiled (one that now spans a window) is repeated like one that overran it.
type jumpClock struct {
	mu sync.Mutex
	t  time.Time
}

func newJumpClock() *jumpClock {
	return &jumpClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Sleep moves the clock on by d, without waiting.
func (c *jumpClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

// TestConformance runs the shared suite against the server, with a short rate window, over
// a small tree, over a tree with one matrix file deleted, and over a tree with extra routes
// of every parameter type and a new error key that no code of the server knows
// (generatortest.AddExtraRoutes): the suite's table cases check those from the config
// alone. Each server's limiter runs on a jumpClock that the suite moves on where it would
// wait for a Retry-After, so the three wait for no time; edge/server/realwindow proves the
// contract's own window on the real clock.
func TestConformance(t *testing.T) {
	t.Parallel()
	t.Run("tree", func(t *testing.T) {
		t.Parallel()
		dir := sharedTree(t)
		conformance.Run(t, conformanceTarget(t, dir, conformance.ShortWindow))
	})
	t.Run("tree with a deleted file", func(t *testing.T) {
		t.Parallel()
		dir := copyTree(t)
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(generatortest.File(generator.RouteMatrix, 14, 7, 2000)))); err != nil {
			t.Fatal(err)
		}
		tg := conformanceTarget(t, dir, conformance.ShortWindow)
		tg.MissingMatrixFile = "14/7/2000"
		conformance.Run(t, tg)
	})
	t.Run("tree with extra routes", func(t *testing.T) {
		t.Parallel()
		dir := copyTree(t)
		generatortest.AddExtraRoutes(t, dir)
		conformance.Run(t, conformanceTarget(t, dir, conformance.ShortWindow))
	})
}

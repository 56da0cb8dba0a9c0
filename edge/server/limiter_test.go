package server

import (
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/opennumerology/numerology/internal/testsupport"
)

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func addr(t *testing.T, s string) netip.Addr { t.Helper(); return netip.MustParseAddr(s) }

func TestLimiterWindow(t *testing.T) {
	clk := newFakeClock()
	l := NewLimiter(60, time.Minute, 100, clk.now)
	a := addr(t, "192.0.2.1")
	for i := range 60 {
		if ok, _ := l.Allow(a); !ok {
			t.Fatalf("request %d denied", i+1)
		}
		clk.advance(500 * time.Millisecond) // the 60 span 29.5 s
	}
	// now = start + 30 s; the oldest (at start) leaves the window at start + 60 s.
	ok, retry := l.Allow(a)
	if ok || retry != 30 {
		t.Fatalf("61st request: ok=%v Retry-After %d, want denied with 30", ok, retry)
	}
	if ok, _ := l.Allow(addr(t, "192.0.2.2")); !ok {
		t.Fatal("another client denied")
	}
	clk.advance(29*time.Second + 999*time.Millisecond)
	if ok, retry := l.Allow(a); ok || retry != 1 {
		t.Fatalf("1 ms before the oldest leaves: ok=%v Retry-After %d, want denied with 1", ok, retry)
	}
	clk.advance(time.Millisecond)
	if ok, _ := l.Allow(a); !ok {
		t.Fatal("request when the oldest leaves the window denied")
	}
	// The slot freed is taken again; the second oldest (start + 0.5 s) leaves at 60.5 s.
	if ok, retry := l.Allow(a); ok || retry != 1 {
		t.Fatalf("next request: ok=%v Retry-After %d, want denied with 1", ok, retry)
	}
}

// TestLimiterRetryAfterExact checks the promise of Retry-After for many phases: a request
// Retry-After seconds after a 429 is admitted, one second earlier it is not.
func TestLimiterRetryAfterExact(t *testing.T) {
	// The 60 requests span less than the window: step × 60 + 123 ms < 60 s.
	for _, step := range []time.Duration{0, time.Millisecond, 170 * time.Millisecond, 500 * time.Millisecond, 980 * time.Millisecond} {
		t.Run(step.String(), func(t *testing.T) {
			clk := newFakeClock()
			l := NewLimiter(60, time.Minute, 10, clk.now)
			a := addr(t, "2001:db8::1")
			for range 60 {
				l.Allow(a)
				clk.advance(step)
			}
			clk.advance(123 * time.Millisecond)
			ok, retry := l.Allow(a)
			if ok {
				t.Fatal("61st request admitted")
			}
			if retry < 1 || retry > 60 {
				t.Fatalf("Retry-After %d outside [1, 60]", retry)
			}
			early := *clk
			early.advance(time.Duration(retry-1) * time.Second)
			saved := clk.t
			clk.t = early.t
			if ok, _ := l.Allow(a); ok && retry > 1 {
				t.Fatalf("admitted one second before Retry-After %d", retry)
			}
			clk.t = saved.Add(time.Duration(retry) * time.Second)
			if ok, _ := l.Allow(a); !ok {
				t.Fatalf("denied after Retry-After %d", retry)
			}
		})
	}
}

func TestLimiterDeniedNotCounted(t *testing.T) {
	clk := newFakeClock()
	l := NewLimiter(2, 10*time.Second, 10, clk.now)
	a := addr(t, "192.0.2.9")
	l.Allow(a)
	l.Allow(a)
	for range 100 { // a client hammering while limited does not extend its wait
		clk.advance(50 * time.Millisecond)
		l.Allow(a)
	}
	clk.t = clk.t.Add(10*time.Second - 5*time.Second)
	if ok, _ := l.Allow(a); !ok {
		t.Fatal("denied after the window of the admitted requests")
	}
}

func TestClientKey(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ipv4", "198.51.100.7", "198.51.100.7"},
		{"ipv4-mapped", "::ffff:198.51.100.7", "198.51.100.7"},
		{"ipv6 /64", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"},
		{"ipv6 zone", "fe80::1%eth0", "fe80::"},
		{"loopback v6", "::1", "::"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClientKey(netip.MustParseAddr(tt.in), 64); got != netip.MustParseAddr(tt.want) {
				t.Errorf("ClientKey(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestLimiterMillionClients checks the bound: a million distinct clients leave at most
// MaxClients tracked, and the heap they hold stays near the bound's estimate.
func TestLimiterMillionClients(t *testing.T) {
	testsupport.SkipShort(t, "a stress test: a million clients")
	clk := newFakeClock()
	const bound = 10_000
	l := NewLimiter(60, time.Minute, bound, clk.now)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var b [16]byte
	b[0], b[1] = 0x20, 0x01
	for i := range 1_000_000 {
		b[8], b[9], b[10] = byte(i>>16), byte(i>>8), byte(i) // distinct /64s
		b[11] = byte(i)                                      // the same /64 also sends from other addresses
		l.Allow(netip.AddrFrom16(b))
		if i%1000 == 0 {
			clk.advance(time.Millisecond)
		}
		if n := l.Len(); i%100_000 == 0 && n > l.MaxClients() {
			t.Fatalf("after %d clients: %d tracked, bound %d", i+1, n, l.MaxClients())
		}
	}
	if n := l.Len(); n > l.MaxClients() || n < bound/2 {
		t.Fatalf("%d tracked, want ≤ %d and near it", n, l.MaxClients())
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	// One timestamp per client here: a slot and its index entry (about 190 bytes); a
	// client sending more than a few requests a window adds a ring of 60*8 bytes.
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d clients hold %d bytes (%d a client)", l.Len(), grown, grown/int64(l.Len()))
	if grown > int64(l.MaxClients())*250 {
		t.Errorf("heap grew by %d bytes for %d clients", grown, l.Len())
	}
	// A window later, every entry is stale and the sweep of each part touched forgets
	// them (4096 new clients touch all 156 parts of a 10,000-client table).
	clk.advance(time.Minute)
	for i := range 4096 {
		l.Allow(netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}))
	}
	if n := l.Len(); n > 4096 {
		t.Errorf("a window later %d clients still tracked", n)
	}
	runtime.KeepAlive(l)
}

// TestLimiterEvictsOneShotFirst fills a limiter of two clients and brings a third: the
// client that came back keeps its window, the one seen once makes room.
func TestLimiterEvictsOneShotFirst(t *testing.T) {
	clk := newFakeClock()
	l := NewLimiter(3, time.Minute, 2, clk.now) // one part of two slots
	back, once, newcomer := addr(t, "198.51.100.1"), addr(t, "198.51.100.2"), addr(t, "198.51.100.3")
	l.Allow(back)
	l.Allow(once)
	l.Allow(back)
	l.Allow(newcomer) // the shard is full: someone makes room
	if ok, _ := l.Allow(back); !ok {
		t.Fatal("the returning client's third request was refused")
	}
	if ok, _ := l.Allow(back); ok {
		t.Error("the returning client's fourth request was admitted: its window was lost")
	}
	for i := range 3 {
		if ok, _ := l.Allow(once); !ok {
			t.Fatalf("the evicted client's request %d was refused: it was not the one evicted", i+1)
		}
	}
}

// TestLimiterMatchesModel checks the limiter against an unbounded model of the sliding
// window, over random requests of 50 clients with limits on both sides of the inline
// timestamps, and with evictions and ring reuse when the clients outnumber the bound.
func TestLimiterMatchesModel(t *testing.T) {
	for _, tt := range []struct {
		name         string
		limit, bound int
	}{
		{"inline only", 3, 1000},
		{"rings", 7, 1000},
		{"rings reused after evictions", 7, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			const window = 10 * time.Second
			l := NewLimiter(tt.limit, window, tt.bound, clk.now)
			model := map[netip.Addr][]time.Time{}
			rng := rand.New(rand.NewPCG(3, uint64(tt.limit)))
			for i := range 20_000 {
				clk.advance(time.Duration(rng.IntN(400)) * time.Millisecond)
				a := netip.AddrFrom4([4]byte{10, 0, 0, byte(rng.IntN(50))})
				var recent []time.Time
				for _, at := range model[a] {
					if clk.t.Sub(at) < window {
						recent = append(recent, at)
					}
				}
				wantOK := len(recent) < tt.limit
				if wantOK {
					recent = append(recent, clk.t)
				}
				model[a] = recent
				ok, retry := l.Allow(a)
				if tt.bound < 1000 {
					if ok != wantOK && !ok {
						// An evicted client starts afresh: admitting is allowed, refusing is not.
						t.Fatalf("request %d of %s: refused, the model admits", i, a)
					}
					if ok && !wantOK {
						model[a] = append(recent, clk.t) // it was evicted and began again
					}
					continue
				}
				if ok != wantOK {
					t.Fatalf("request %d of %s: admitted %v, the model says %v", i, a, ok, wantOK)
				}
				if !ok {
					want := int((recent[0].Add(window).Sub(clk.t) + time.Second - 1) / time.Second)
					if retry != want {
						t.Fatalf("request %d of %s: Retry-After %d, want %d", i, a, retry, want)
					}
				}
			}
		})
	}
}

// TestLimiterSmallBoundFull checks that a small bound is one table, full only when it holds
// that many clients: 100 clients of a 100-client limiter each keep their count. With 256
// parts of one slot each, as before for any bound up to 256, two of them almost surely
// shared a part and pushed each other out, and a client so pushed out was admitted again
// within its window.
func TestLimiterSmallBoundFull(t *testing.T) {
	for _, bound := range []int{1, 100, 127, 128, 1000, DefaultRateClients} {
		t.Run(strconv.Itoa(bound), func(t *testing.T) {
			clk := newFakeClock()
			l := NewLimiter(1, time.Minute, bound, clk.now)
			if l.MaxClients() < bound {
				t.Fatalf("bound %d: room for %d clients", bound, l.MaxClients())
			}
			// Clients of one part, as many as a part holds at the least: the whole bound
			// below 2 × minShardSlots, else minShardSlots.
			n := bound
			if bound >= 2*minShardSlots {
				n = minShardSlots
			}
			var clients []netip.Addr
			for i := 0; len(clients) < n; i++ {
				a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
				if l.shard(a.As16()) == 0 {
					clients = append(clients, a)
				}
			}
			for _, a := range clients {
				if ok, _ := l.Allow(a); !ok {
					t.Fatalf("first request of %s refused", a)
				}
			}
			for _, a := range clients {
				if ok, _ := l.Allow(a); ok {
					t.Fatalf("second request of %s admitted in its window: it was pushed out of a part with room", a)
				}
			}
			if got := l.Len(); got != n {
				t.Errorf("%d clients tracked, want %d", got, n)
			}
		})
	}
}

package server

import (
	"hash/maphash"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// limiterShards is the number of independently locked parts of the client table.
const limiterShards = 64

// DefaultRateClients is the default bound on the clients the limiter tracks at once.
const DefaultRateClients = 100_000

// Limiter is an exact sliding-window rate limiter keyed by client address: a request is
// admitted when fewer than Limit requests of the same client were admitted in the Window
// before it. Denied requests are not counted.
//
// Memory is bounded: at most MaxClients clients are tracked, each holding up to Limit
// timestamps of 8 bytes in a ring (about Limit*8 + 150 bytes per client). A client whose
// newest request is older than the window is forgotten when its shard is swept (at most once
// per window per shard) or when the table needs room. When the table is full, the least
// recently seen of a few sampled clients is evicted, so an attacker with more addresses than
// MaxClients can reset the counters of others; that is the price of the bound.
type Limiter struct {
	limit    int
	window   int64 // nanoseconds
	perShard int
	now      func() time.Time
	base     time.Time
	seed     maphash.Seed
	shards   [limiterShards]limiterShard
}

type limiterShard struct {
	mu        sync.Mutex
	clients   map[netip.Addr]*clientWindow
	lastSweep int64
}

// clientWindow holds the times of the admitted requests of one client in the last window,
// oldest first from head, as nanoseconds since the limiter's base time.
type clientWindow struct {
	times []int64
	head  int // index of the oldest time when len(times) == limit
	last  int64
}

// NewLimiter returns a limiter admitting limit requests per window per client, tracking at
// most maxClients clients (DefaultRateClients when 0 or less). now is the clock (time.Now
// when nil).
func NewLimiter(limit int, window time.Duration, maxClients int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	if maxClients <= 0 {
		maxClients = DefaultRateClients
	}
	per := (maxClients + limiterShards - 1) / limiterShards
	if per < 1 {
		per = 1
	}
	l := &Limiter{
		limit:    limit,
		window:   int64(window),
		perShard: per,
		now:      now,
		base:     now(),
		seed:     maphash.MakeSeed(),
	}
	for i := range l.shards {
		l.shards[i].clients = make(map[netip.Addr]*clientWindow)
	}
	return l
}

// MaxClients is the bound on tracked clients.
func (l *Limiter) MaxClients() int { return l.perShard * limiterShards }

// Len returns the number of clients tracked now.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.clients)
		s.mu.Unlock()
	}
	return n
}

// Allow counts a request of client and reports whether it is admitted; when it is not,
// retryAfter is the whole number of seconds (≥ 1) after which a request will be.
func (l *Limiter) Allow(client netip.Addr) (ok bool, retryAfter int) {
	now := int64(l.now().Sub(l.base))
	s := &l.shards[maphash.Comparable(l.seed, client)%limiterShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if now-s.lastSweep >= l.window {
		s.sweep(now, l.window)
	}
	c := s.clients[client]
	if c == nil {
		if len(s.clients) >= l.perShard {
			s.evict(now, l.window)
		}
		c = &clientWindow{}
		s.clients[client] = c
	}
	c.last = now
	if len(c.times) < l.limit {
		c.times = append(c.times, now)
		return true, 0
	}
	oldest := c.times[c.head]
	if expiry := oldest + l.window; expiry > now {
		wait := expiry - now
		return false, int((wait + int64(time.Second) - 1) / int64(time.Second))
	}
	c.times[c.head] = now
	c.head = (c.head + 1) % l.limit
	return true, 0
}

// sweep forgets the clients whose newest request is a window old.
func (s *limiterShard) sweep(now, window int64) {
	s.lastSweep = now
	for k, c := range s.clients {
		if now-c.last >= window {
			delete(s.clients, k)
		}
	}
}

// evict makes room for one client: an expired one if a sample finds one, else the least
// recently seen of the sample. Map iteration order is random, which makes the sample so.
func (s *limiterShard) evict(now, window int64) {
	const sample = 8
	var victim netip.Addr
	var victimLast int64
	i := 0
	for k, c := range s.clients {
		if now-c.last >= window {
			delete(s.clients, k)
			return
		}
		if i == 0 || c.last < victimLast {
			victim, victimLast = k, c.last
		}
		if i++; i == sample {
			break
		}
	}
	delete(s.clients, victim)
}

// nat64 is the well-known NAT64 prefix (RFC 6052): an address in it is an IPv4 client
// reached over IPv6, with its IPv4 address in the last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// ClientKey returns the limiter key of an address (docs/design.md §3): an IPv4 client,
// also written as an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) IPv6 address, by
// its IPv4 address; any other IPv6 address by its first ipv6Bits bits, zone dropped.
func ClientKey(a netip.Addr, ipv6Bits int) netip.Addr {
	a = a.Unmap().WithZone("")
	if nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	if a.Is6() {
		if p, err := a.Prefix(ipv6Bits); err == nil {
			return p.Addr()
		}
	}
	return a
}

// headerClientKey returns the limiter key of the client a trusted header's value names:
// its last comma-separated element, OWS trimmed, an IP address with or without a port
// ("192.0.2.1", "192.0.2.1:443", "[2001:db8::1]:443"), keyed by ClientKey. ok is false
// when that element is not an address. The worker keys CF-Connecting-IP the same way
// (clientKey in edge/worker/src/index.js; edge/testdata/vectors.json checks both).
func headerClientKey(value string, ipv6Bits int) (key netip.Addr, ok bool) {
	if i := strings.LastIndexByte(value, ','); i >= 0 {
		value = value[i+1:]
	}
	value = strings.Trim(value, " \t")
	if a, err := netip.ParseAddr(value); err == nil {
		return ClientKey(a, ipv6Bits), true
	}
	if ap, err := netip.ParseAddrPort(value); err == nil {
		return ClientKey(ap.Addr(), ipv6Bits), true
	}
	return netip.Addr{}, false
}

package server

import (
	"hash/maphash"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// limiterShards is the most independently locked parts of the client table, and
// minShardSlots the fewest slots of a part: a smaller bound has fewer parts (one below
// 2 × minShardSlots), so that a part is not full while the table has room. With a slot or
// two a part, two clients of one part would push each other out.
const (
	limiterShards = 256
	minShardSlots = 64
)

// DefaultRateClients is the default bound on the clients the limiter tracks at once.
const DefaultRateClients = 100_000

// Limiter is an exact sliding-window rate limiter keyed by client address: a request is
// admitted when fewer than Limit requests of the same client were admitted in the Window
// before it. Denied requests are not counted.
//
// Memory is bounded: at most MaxClients clients are tracked, each taking about 190 bytes
// (a slot holding its first few timestamps, and its index entry), plus a ring of Limit
// timestamps of 8 bytes for a client that sends more. A client whose newest request is
// older than the window is forgotten when its shard is swept (at most once per window per
// shard) or when the table needs room. When a shard is full, a new client takes the slot of
// an expired client, or else of the first client not seen again since it came or since the
// clock hand last passed it (CLOCK, an approximation of least recently used); so an
// attacker with more addresses than MaxClients can reset the counters of others: that is
// the price of the bound. The table holds no pointers, so the collector does not scan it.
// It is split into parts locked each on its own: 256 at the default bound, fewer for a
// small one, each of at least 64 slots (limiterShards, minShardSlots).
type Limiter struct {
	limit    int
	window   int64 // nanoseconds
	perShard int
	nshards  int // the parts in use, 1 to limiterShards
	now      func() time.Time
	base     time.Time
	seed     maphash.Seed
	shards   [limiterShards]limiterShard
}

type limiterShard struct {
	mu        sync.Mutex
	index     map[[16]byte]int32 // client → slot
	slots     []clientSlot       // up to perShard
	free      []int32            // slots of forgotten clients
	hand      int                // the CLOCK hand over slots
	rings     []int64            // the rings of busy clients, limit timestamps each
	freeRings []int32            // rings of forgotten clients
	lastSweep int64
}

// inlineTimes is how many timestamps a client holds without a ring of its own.
const inlineTimes = 4

// clientSlot holds the times of the admitted requests of one client in the last window, as
// nanoseconds since the limiter's base time, in admission order: in inline while there are
// at most inlineTimes, then in a ring of the shard's rings (ring is its index plus one).
// Once limit times are held, head indexes the oldest.
type clientSlot struct {
	key    [16]byte
	last   int64
	n      int32
	head   int32
	ring   int32
	used   bool
	seen   bool // since the clock hand last passed
	inline [inlineTimes]int64
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
	n := min(max(maxClients/minShardSlots, 1), limiterShards)
	per := (maxClients + n - 1) / n
	l := &Limiter{
		limit:    limit,
		window:   int64(window),
		perShard: per,
		nshards:  n,
		now:      now,
		base:     now(),
		seed:     maphash.MakeSeed(),
	}
	for i := range l.shards[:n] {
		l.shards[i].index = make(map[[16]byte]int32)
	}
	return l
}

// MaxClients is the bound on tracked clients.
func (l *Limiter) MaxClients() int { return l.perShard * l.nshards }

// Len returns the number of clients tracked now.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards[:l.nshards] {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.index)
		s.mu.Unlock()
	}
	return n
}

// Allow counts a request of client and reports whether it is admitted; when it is not,
// retryAfter is the whole number of seconds (≥ 1) after which a request will be.
func (l *Limiter) Allow(client netip.Addr) (ok bool, retryAfter int) {
	now := int64(l.now().Sub(l.base))
	key := client.As16()
	s := &l.shards[l.shard(key)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if now-s.lastSweep >= l.window {
		s.sweep(now, l.window)
	}
	i, ok := s.index[key]
	if !ok {
		i = s.take(now, l.window, l.perShard)
		s.slots[i] = clientSlot{key: key, used: true}
		s.index[key] = i
	}
	c := &s.slots[i]
	// A client is marked seen from its second request on: addresses used once (a flood of
	// fresh ones) make room for each other before clients that come back.
	c.seen = ok
	c.last = now
	if wait := s.admit(c, now, l.window, l.limit); wait > 0 {
		return false, int((wait + int64(time.Second) - 1) / int64(time.Second))
	}
	return true, 0
}

// shard is the part of the table that holds a client's key.
func (l *Limiter) shard(key [16]byte) int {
	return int(maphash.Comparable(l.seed, key) % uint64(l.nshards))
}

// admit records a request of c at now and returns 0, or when limit requests were admitted
// in the window before now, how long until the oldest leaves it.
func (s *limiterShard) admit(c *clientSlot, now, window int64, limit int) int64 {
	if int(c.n) < limit {
		if int(c.n) < inlineTimes {
			c.inline[c.n] = now
		} else {
			if c.ring == 0 {
				c.ring = s.newRing(limit)
				copy(s.ring(c, limit), c.inline[:])
			}
			s.ring(c, limit)[c.n] = now
		}
		c.n++
		return 0
	}
	times := c.inline[:min(limit, inlineTimes)]
	if c.ring != 0 {
		times = s.ring(c, limit)
	}
	if expiry := times[c.head] + window; expiry > now {
		return expiry - now
	}
	times[c.head] = now
	c.head = (c.head + 1) % int32(limit)
	return 0
}

// ring is the ring of a busy client.
func (s *limiterShard) ring(c *clientSlot, limit int) []int64 {
	i := int(c.ring-1) * limit
	return s.rings[i : i+limit : i+limit]
}

// newRing returns a free ring (index plus one).
func (s *limiterShard) newRing(limit int) int32 {
	if n := len(s.freeRings); n > 0 {
		r := s.freeRings[n-1]
		s.freeRings = s.freeRings[:n-1]
		return r
	}
	s.rings = append(s.rings, make([]int64, limit)...)
	return int32(len(s.rings) / limit)
}

// forget frees the slot of a client that leaves, and its ring.
func (s *limiterShard) forget(c *clientSlot) {
	delete(s.index, c.key)
	if c.ring != 0 {
		s.freeRings = append(s.freeRings, c.ring)
	}
	*c = clientSlot{}
}

// take returns a slot for a new client: a free one, a new one while the shard is below its
// bound, else an evicted one.
func (s *limiterShard) take(now, window int64, bound int) int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	if len(s.slots) < bound {
		if s.slots == nil {
			// Its whole bound at once: pages not yet touched cost no memory, and the
			// slots never move.
			s.slots = make([]clientSlot, 0, bound)
		}
		s.slots = append(s.slots, clientSlot{})
		return int32(len(s.slots) - 1)
	}
	for range 2*len(s.slots) + 1 {
		i := s.hand
		s.hand = (s.hand + 1) % len(s.slots)
		c := &s.slots[i]
		if c.seen && now-c.last < window {
			c.seen = false
			continue
		}
		s.forget(c)
		return int32(i)
	}
	panic("limiter: no slot to evict") // unreachable: the second pass finds seen cleared
}

// sweep forgets the clients whose newest request is a window old.
func (s *limiterShard) sweep(now, window int64) {
	s.lastSweep = now
	for i := range s.slots {
		if c := &s.slots[i]; c.used && now-c.last >= window {
			s.forget(c)
			s.free = append(s.free, int32(i))
		}
	}
}

// Translation prefixes (docs/design.md §3): an address in nat64 (RFC 6052) or siit (the
// IPv4-translated addresses of RFC 2765) is an IPv4 client seen through a translator, its
// IPv4 address in the last 32 bits; an address in localNAT64 (RFC 8215) is one too, but the
// operator's prefix length (/48 to /96) decides where its IPv4 address sits, so the whole
// address is the key. Keyed by /64, each would put every IPv4 client behind the
// translator into one budget.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	siit       = netip.MustParsePrefix("::ffff:0:0:0/96")
	localNAT64 = netip.MustParsePrefix("64:ff9b:1::/48")
)

// ClientKey returns the limiter key of an address (docs/design.md §3): an IPv4 client,
// also written as an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or SIIT
// (::ffff:0:0:0/96) IPv6 address, by its IPv4 address; an address of the local-use
// translation prefix 64:ff9b:1::/48 by itself; any other IPv6 address by its first
// ipv6Bits bits, zone dropped.
func ClientKey(a netip.Addr, ipv6Bits int) netip.Addr {
	a = a.Unmap().WithZone("")
	switch {
	case nat64.Contains(a), siit.Contains(a):
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	case localNAT64.Contains(a):
		return a
	case a.Is6():
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

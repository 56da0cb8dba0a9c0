package content

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// CanonicalSiteURL checks a site URL and returns its canonical form. It accepts only
// http(s)://host[:port][/path]: a lowercase scheme, a host name without empty labels (an
// internationalised one is converted to its ASCII form) whose last label is not a number,
// a dotted-decimal IPv4 address or a bracketed IPv6 address, a port of digits 1–65535, and
// a path of URL-safe characters other than "&" without a trailing slash, empty segments,
// "." or ".." (in any spelling: %2e is a dot). Query, fragment, user info, spaces and quotes are refused, since every URL
// of the API is built by appending to it. The error names the problem.
func CanonicalSiteURL(s string) (string, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != "https" && scheme != "http") {
		return "", fmt.Errorf("%q: must start with https:// or http://", s)
	}
	if i := strings.IndexFunc(rest, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(unsafeURLChars, r) }); i >= 0 {
		return "", fmt.Errorf("%q: contains %q, which a URL cannot hold unescaped", s, rest[i:i+1])
	}
	for _, c := range []struct{ sep, what string }{{"?", "query"}, {"#", "fragment"}, {"@", "user info"}} {
		if strings.Contains(rest, c.sep) {
			return "", fmt.Errorf("%q: must have no %s (%s)", s, c.what, c.sep)
		}
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, err := canonicalHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("%q: %w", s, err)
	}
	if path != "" || strings.HasSuffix(rest, "/") {
		if err := checkURLPath("/" + path); err != nil {
			return "", fmt.Errorf("%q: %w", s, err)
		}
	}
	out := scheme + "://" + host
	if path != "" {
		out += "/" + path
	}
	return out, nil
}

// unsafeURLChars may not appear unescaped in a URL (RFC 3986's excluded characters).
const unsafeURLChars = "\"<>\\^`{|}"

// canonicalHostPort checks host[:port] and returns it with the host in ASCII form.
func canonicalHostPort(hp string) (string, error) {
	host, port := hp, ""
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return "", errors.New("unclosed [ in the host")
		}
		host, port = hp[:end+1], strings.TrimPrefix(hp[end+1:], ":")
		if hp[end+1:] != "" && !strings.HasPrefix(hp[end+1:], ":") {
			return "", errors.New("junk after the IPv6 address")
		}
		if a, err := netip.ParseAddr(host[1 : len(host)-1]); err != nil || !a.Is6() {
			return "", fmt.Errorf("%s is not an IPv6 address", host)
		}
	} else if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		host, port = hp[:i], hp[i+1:]
	}
	if hp != "" && strings.HasSuffix(hp, ":") {
		return "", errors.New("empty port")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || strings.Trim(port, "0123456789") != "" || n < 1 || n > 65535 || port[0] == '0' {
			return "", fmt.Errorf("port %q: must be a number 1–65535, digits only", port)
		}
		port = ":" + port
	}
	if host == "" {
		return "", errors.New("no host")
	}
	if strings.HasPrefix(host, "[") {
		return host + port, nil
	}
	if strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return "", fmt.Errorf("host %q: empty label (a dot at the start or end, or two dots)", host)
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", host, err)
	}
	if endsInNumber(ascii) {
		// Browsers read such a host as an IPv4 address (0x7f.1 is 127.0.0.1): only the
		// plain dotted-decimal form says what it is.
		if a, err := netip.ParseAddr(ascii); err != nil || !a.Is4() {
			return "", fmt.Errorf("host %q: ends in a number, so browsers read it as an IPv4 address; write the address as four decimal numbers (127.0.0.1)", host)
		}
	}
	return ascii + port, nil
}

// endsInNumber reports whether a host's last label is a number as the WHATWG URL standard
// reads it (decimal, or hex after 0x), which makes the whole host an IPv4 address.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if hex, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// checkURLPath accepts a path of unreserved characters, percent escapes and the
// sub-delimiters a path may hold, with no empty, "." or ".." segment and no trailing slash.
func checkURLPath(p string) error {
	if strings.HasSuffix(p, "/") {
		return errors.New("must have no trailing slash")
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("path segment %q: empty, . and .. are not allowed", seg)
		}
		// A dot may be spelled %2e: browsers and servers resolve "%2e%2e", ".%2E" and "%2e"
		// as the dot segments they are (RFC 3986 §2.3, the WHATWG URL standard).
		if d := strings.ReplaceAll(strings.ReplaceAll(seg, "%2e", "."), "%2E", "."); d == "." || d == ".." {
			return fmt.Errorf("path segment %q: a %s segment spelled with %%2e; empty, . and .. are not allowed", seg, d)
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			switch {
			// "&" is a sub-delimiter too, but it must be escaped in the HTML and JSON the
			// URL is written into: it is refused here rather than written escaped.
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~!$'()*+,;=:", c) >= 0:
			case c == '%' && i+2 < len(seg) && isHex(seg[i+1]) && isHex(seg[i+2]):
				i += 2
			default:
				return fmt.Errorf("path %q: character %q must be percent-encoded (%%%02X)", p, seg[i:i+1], seg[i])
			}
		}
	}
	return nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

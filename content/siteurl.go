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
// http(s)://host[:port][/path]: a lowercase scheme, a host name (an internationalised one
// is converted to its ASCII form), an IPv4 address or a bracketed IPv6 address, a port
// 1–65535, and a path of URL-safe characters without a trailing slash, empty segments,
// "." or "..". Query, fragment, user info, spaces and quotes are refused, since every URL
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
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return "", fmt.Errorf("port %q: must be a number 1–65535", port)
		}
		port = ":" + port
	}
	if host == "" {
		return "", errors.New("no host")
	}
	if strings.HasPrefix(host, "[") {
		return host + port, nil
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", host, err)
	}
	return ascii + port, nil
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
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~!$&'()*+,;=:", c) >= 0:
			case c == '%' && i+2 < len(seg) && isHex(seg[i+1]) && isHex(seg[i+2]):
				i += 2
			default:
				return fmt.Errorf("path %q: character %q must be percent-encoded", p, seg[i:i+1])
			}
		}
	}
	return nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

package netguard

import (
	"crypto/x509"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/sandbox"
)

// Rules a URL check can fail with, reported in [sandbox.PolicyError.Rule]. Their
// reasons never list the allowlist.
const (
	RuleOff       = "http.off"       // no network policy in this run
	RuleMalformed = "http.malformed" // not a strict absolute URL
	RuleScheme    = "http.scheme"    // not https (or http when allowed)
	RuleUserinfo  = "http.userinfo"  // credentials or '@' in the authority
	RuleHost      = "http.host"      // host syntax: non-ASCII, trailing dot, IP encodings
	RulePort      = "http.port"      // not the allowed port of the host
	RulePath      = "http.path"      // dot segments, or outside the allowed path prefixes
	RuleMethod    = "http.method"    // method not in the allowed set
	// RuleHostNotAllowed: the host is not in the allowlist.
	RuleHostNotAllowed = "http.host_not_allowed"
)

// MaxURLLen is the longest URL, in bytes, that [Policy.CheckURL] accepts.
const MaxURLLen = 4096

// Policy is the network policy of http_fetch (B4). The zero value
// allows nothing. Its methods do not modify it, so one policy may serve
// concurrent fetches.
type Policy struct {
	// Allow lists origins ("https://api.github.com", "https://host:8443")
	// or origin+path prefixes ("https://api.github.com/repos/*"). Hosts
	// match exactly, case-insensitively; an entry without a scheme means
	// https. A path without '*' allows itself and what lies below it.
	Allow []string
	// Restrict, when not empty, narrows Allow: a URL must match an entry
	// of Allow and one of Restrict, both in Allow's form. It holds a
	// project's allowlist, which may only narrow the user's (T20).
	Restrict []string
	// Methods allowed; empty means GET and HEAD. CONNECT and TRACE are
	// never allowed.
	Methods []string
	// Resolve pins DNS answers, like curl's --resolve: "host:port" →
	// addresses. Used by `agentls vet --resolve` and tests. The dial-time
	// address checks apply to pinned addresses too.
	Resolve map[string][]string
	// MaxBytes bounds a response body; zero means 2 MiB.
	MaxBytes int64
	// Timeout bounds a whole fetch; zero means 30 s.
	Timeout time.Duration
	// AllowHTTP lets "http" URLs through (they must still match Allow).
	AllowHTTP bool
	// AllowAddrs are address ranges [CheckAddr] accepts although they are
	// not public, e.g. a company network. Empty means public addresses only.
	AllowAddrs []netip.Prefix
	// Headers are added per origin ("https://api.github.com" →
	// "Authorization" → "Bearer …"): credentials from configuration, never
	// from the model. A redirect to another origin does not carry them.
	Headers map[string]map[string]string

	// Test hooks.
	rootCAs *x509.CertPool                      // trusted roots instead of the system's
	rebind  func(netip.AddrPort) netip.AddrPort // changes an address after its check
}

// CheckURL checks raw and method against the policy without any I/O and
// returns the URL to fetch: host lowercased, default port and fragment
// removed. Every refusal is a [*sandbox.PolicyError] whose Subject is raw without
// any userinfo.
//
// The check is strict on purpose. Only "scheme://host[:port]/…" URLs pass;
// the authority may hold ASCII letters, digits, '-', '_' and '.' only (no
// userinfo, not even an empty '@', no percent escapes, no Unicode dots); a
// trailing dot is refused, not normalised; an IPv4 host must be four
// canonical decimal numbers (no 2130706433, 0x7f.1 or 0177.0.0.1) and an
// IP literal must pass [CheckAddr]; IPv6 zones are refused; a port must be
// canonical decimal. Path segments "." and ".." (also percent-encoded) are
// refused, because servers remove them after a path-prefix check. When
// Resolve pins the host, every pinned address must pass [CheckAddr] too.
func (p *Policy) CheckURL(raw, method string) (*url.URL, error) {
	fail := func(rule, reason string) (*url.URL, error) {
		return nil, &sandbox.PolicyError{Rule: rule, Subject: redactURL(raw), Reason: reason}
	}
	if p == nil {
		return fail(RuleOff, "network access is off")
	}
	if len(raw) > MaxURLLen {
		return fail(RuleMalformed, "the URL is too long")
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return fail(RuleMalformed, "the URL contains a space, control character or backslash")
		}
	}
	if !utf8.ValidString(raw) {
		return fail(RuleMalformed, "the URL is not valid UTF-8")
	}
	colon := strings.IndexByte(raw, ':')
	if colon <= 0 || !isScheme(raw[:colon]) {
		return fail(RuleMalformed, "the URL has no scheme; write it as https://host/path")
	}
	scheme := strings.ToLower(raw[:colon])
	if scheme != "https" && (scheme != "http" || !p.AllowHTTP) {
		return fail(RuleScheme, "only https URLs are allowed")
	}
	rest, ok := strings.CutPrefix(raw[colon+1:], "//")
	if !ok {
		return fail(RuleMalformed, "the URL has no host; write it as "+scheme+"://host/path")
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.IndexByte(authority, '@') >= 0 {
		return fail(RuleUserinfo, "credentials in URLs are not accepted")
	}
	host, port, rule, reason := splitAuthority(authority, scheme)
	if rule != "" {
		return fail(rule, reason)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != scheme || u.User != nil || u.Opaque != "" || u.Host != authority {
		return fail(RuleMalformed, "the URL does not parse strictly")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := CheckAddr(addr, p.AllowAddrs); err != nil {
			return fail(RuleAddr, err.(*sandbox.PolicyError).Reason)
		}
	} else if pins, ok := p.pins(host, port); ok {
		// Pinned answers are configuration: judge them now, not only when
		// dialling, so `agentls vet --resolve` sees the refusal.
		for _, s := range pins {
			a, err := netip.ParseAddr(s)
			if err == nil {
				err = CheckAddr(a, p.AllowAddrs)
			}
			if err != nil {
				return fail(RuleAddr, "the host resolves to a refused address")
			}
		}
	}
	if !p.methodAllowed(method) {
		return fail(RuleMethod, "method not allowed; use GET or HEAD")
	}
	path := u.EscapedPath()
	if hasDotSegment(path) {
		return fail(RulePath, "the path has '.' or '..' segments")
	}
	if rule, reason := matchAllow(p.Allow, scheme, host, port, path); rule != "" {
		return fail(rule, reason)
	}
	if len(p.Restrict) > 0 {
		if rule, reason := matchAllow(p.Restrict, scheme, host, port, path); rule != "" {
			return fail(rule, reason)
		}
	}
	u.Host = host
	if strings.IndexByte(host, ':') >= 0 {
		u.Host = "[" + host + "]"
	}
	if port != defaultPort(scheme) {
		u.Host += ":" + port
	}
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery = escapeNonASCII(u.RawQuery)
	return u, nil
}

// escapeNonASCII percent-encodes the bytes of s above 0x7f, so the request
// line is ASCII.
func escapeNonASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			if b.Len() == 0 {
				b.WriteString(s[:i])
			}
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c), 16)))
		} else if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// splitAuthority checks the authority (no userinfo) and returns the
// lowercased host (an IPv6 literal without brackets) and the port.
func splitAuthority(a, scheme string) (host, port, rule, reason string) {
	port = defaultPort(scheme)
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "", "", RuleMalformed, "unclosed IPv6 literal"
		}
		host, a = strings.ToLower(a[1:end]), a[end+1:]
		addr, err := netip.ParseAddr(host)
		if err != nil || !addr.Is6() || addr.Zone() != "" || strings.IndexByte(host, '%') >= 0 {
			return "", "", RuleHost, "invalid IPv6 literal"
		}
		if a != "" && a[0] != ':' {
			return "", "", RuleMalformed, "junk after the IPv6 literal"
		}
	} else {
		h := a
		if i := strings.IndexByte(a, ':'); i >= 0 {
			h, a = a[:i], a[i:]
		} else {
			a = ""
		}
		if rule, reason := checkHostName(h); rule != "" {
			return "", "", rule, reason
		}
		host = strings.ToLower(h)
	}
	if a != "" { // ":port"
		port = a[1:]
		if port == "" || len(port) > 5 || port[0] == '0' || strings.Trim(port, "0123456789") != "" || atoi(port) > 65535 {
			return "", "", RuleMalformed, "malformed port"
		}
	}
	return host, port, "", ""
}

// checkHostName checks a DNS name or dotted-decimal IPv4 address.
func checkHostName(h string) (rule, reason string) {
	switch {
	case h == "":
		return RuleMalformed, "the URL has no host"
	case len(h) > 253:
		return RuleHost, "host name too long"
	case strings.HasSuffix(h, "."):
		return RuleHost, "host name ends with a dot; remove it"
	}
	label := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.':
			if label == 0 {
				return RuleHost, "empty label in the host name"
			}
			label = 0
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return RuleHost, "host must be ASCII letters, digits, '-' and '.' (use punycode for IDNs)"
		}
		if label++; label > 63 {
			return RuleHost, "host label too long"
		}
	}
	// A name whose last label is numeric is an IPv4 address to URL parsers
	// and resolvers, in forms (decimal, octal, hex, short) that differ
	// between them: accept only the canonical dotted quad.
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.Trim(last, "0123456789") == "" || len(last) > 1 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		if a, err := netip.ParseAddr(h); err != nil || !a.Is4() {
			return RuleHost, "IPv4 addresses must be written as four decimal numbers"
		}
	}
	return "", ""
}

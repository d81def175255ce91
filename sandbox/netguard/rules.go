package netguard

import (
	"fmt"
	"slices"
	"strings"
)

// defaultMethods are the methods allowed when [Policy.Methods] is empty.
var defaultMethods = []string{"GET", "HEAD"}

// Validate reports the Allow entries that can never match, so a
// configuration loader can warn about them. CheckURL treats them as absent.
func (p *Policy) Validate() error {
	var bad []string
	for _, r := range slices.Concat(p.Allow, p.Restrict) {
		scheme, host, port, _ := splitRule(r)
		if _, _, rule, _ := splitAuthority(host+":"+port, scheme); rule != "" ||
			scheme != "https" && scheme != "http" {
			bad = append(bad, fmt.Sprintf("%q", r))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("http allow entries that never match: %s", strings.Join(bad, ", "))
	}
	return nil
}

// methodAllowed reports whether method (empty means GET) is allowed.
func (p *Policy) methodAllowed(method string) bool {
	if method == "" {
		method = "GET"
	}
	if method == "CONNECT" || method == "TRACE" {
		return false
	}
	ms := p.Methods
	if len(ms) == 0 {
		ms = defaultMethods
	}
	for _, m := range ms {
		if m == method {
			return true
		}
	}
	return false
}

// matchAllow finds an entry of list (Allow or Restrict) for the checked
// URL parts. It does not allocate: entries are split on the fly. Reasons
// do not reveal entries.
func matchAllow(list []string, scheme, host, port, path string) (rule, reason string) {
	rule, reason = RuleHostNotAllowed, "host not in the allowlist"
	for _, r := range list {
		rs, rh, rp, rpath := splitRule(r)
		rh = strings.TrimSuffix(strings.TrimPrefix(rh, "["), "]")
		if !strings.EqualFold(rs, scheme) || !strings.EqualFold(rh, host) {
			continue
		}
		if rp != port {
			rule, reason = RulePort, "port not in the allowlist"
			continue
		}
		if !pathAllowed(rpath, path) {
			if rule != RulePort {
				rule, reason = RulePath, "path not in the allowlist"
			}
			continue
		}
		return "", ""
	}
	return rule, reason
}

// splitRule splits an Allow entry into scheme, host, port and path.
func splitRule(r string) (scheme, host, port, path string) {
	scheme, rest, ok := strings.Cut(r, "://")
	if !ok {
		scheme, rest = "https", r
	}
	scheme = strings.ToLower(scheme)
	host = rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	port = defaultPort(scheme)
	if i := strings.LastIndexByte(host, ':'); i >= 0 && i > strings.LastIndexByte(host, ']') {
		host, port = host[:i], host[i+1:]
	}
	return scheme, host, port, path
}

// pathAllowed reports whether the escaped path lies under the rule path:
// "" and "/" allow everything, "/a/*" every path starting with "/a/", "/a"
// the path "/a" and everything below it. Under a path rule, an encoded
// slash or backslash is refused: a server may decode it into a separator
// and leave the prefix ("/a%2F..%2Fadmin").
func pathAllowed(rule, path string) bool {
	switch {
	case rule == "" || rule == "/" || rule == "/*":
		return true
	case strings.Contains(strings.ToLower(path), "%2f") || strings.Contains(strings.ToLower(path), "%5c"):
		return false
	case strings.HasSuffix(rule, "*"):
		return strings.HasPrefix(path, rule[:len(rule)-1])
	}
	rule = strings.TrimSuffix(rule, "/")
	return path == rule || strings.HasPrefix(path, rule+"/")
}

// hasDotSegment reports whether an escaped path has a "." or ".." segment,
// spelled plainly or with %2e, also with a ";param" (which some servers
// drop before resolving the dots).
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		seg, _, _ = strings.Cut(seg, ";")
		if len(seg) > 6 || seg == "" {
			continue
		}
		s := strings.ReplaceAll(strings.ToLower(seg), "%2e", ".")
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// atoi parses at most 5 decimal digits, already checked.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// redactURL removes anything that could be userinfo from raw, so a
// refused URL with credentials does not reach logs or the model.
func redactURL(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth = rest[:i]
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return raw
	}
	return raw[:len(raw)-len(rest)] + "***@" + rest[at+1:]
}

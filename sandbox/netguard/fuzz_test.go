package netguard

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// FuzzCheckURL checks that CheckURL never panics, is deterministic, refuses
// only with a *sandbox.PolicyError, and that what it accepts is a normalized https
// URL on an allowed host and port, without userinfo or fragment, that it
// accepts again unchanged.
func FuzzCheckURL(f *testing.F) {
	for _, c := range loadURLCases(f) {
		f.Add(c.URL, c.Method)
		if c.RedirectTo != "" {
			f.Add(c.RedirectTo, "GET")
		}
	}
	for _, s := range []string{
		"https://api.github.com:443/a?b#c", "https://[::ffff:127.0.0.1]/", "https://0x7f.1/", "https://a@b/",
		"https://docs.example.org/api/%2e%2e/x", "https://svc.example.net/v1/..", "HTTPS://API.GITHUB.COM",
		"https://xn--80ak6aa92e.com/", "https://example.com:8443", "https://pkg.go.dev/?q=é",
	} {
		f.Add(s, "GET")
	}
	p := adversarialPolicy()
	allowed := map[string]bool{"api.github.com": true, "pkg.go.dev": true, "example.com": true,
		"docs.example.org": true, "svc.example.net": true, "xn--80ak6aa92e.com": true}
	f.Fuzz(func(t *testing.T, raw, method string) {
		u, err := p.CheckURL(raw, method)
		u2, err2 := p.CheckURL(raw, method)
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() || u != nil && u.String() != u2.String() {
			t.Fatalf("not deterministic: %v / %v", err, err2)
		}
		if err != nil {
			if _, ok := errors.AsType[*sandbox.PolicyError](err); !ok {
				t.Fatalf("error %T is not a *sandbox.PolicyError", err)
			}
			return
		}
		if u.Scheme != "https" || u.User != nil || u.Fragment != "" || !allowed[u.Hostname()] ||
			u.Hostname() != strings.ToLower(u.Hostname()) || u.Port() != "" && u.Port() != "8443" {
			t.Fatalf("CheckURL(%.200q) accepted %.200s", raw, u)
		}
		if _, err := netip.ParseAddr(u.Hostname()); err == nil {
			t.Fatalf("CheckURL(%q) accepted an IP host", raw)
		}
		if len(u.String()) > MaxURLLen { // escaping made it longer
			return
		}
		again, err := p.CheckURL(u.String(), method)
		if err != nil || again.String() != u.String() {
			t.Fatalf("normalized %.200s not stable: %.200v %.200v", u, again, err)
		}
		// What net/url sees must agree with what was checked.
		if pu, err := url.Parse(u.String()); err != nil || pu.Host != u.Host {
			t.Fatalf("%s re-parses differently", u)
		}
	})
}

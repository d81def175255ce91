package netguard

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// urlCase is one line of testdata/urls.jsonl.
type urlCase struct {
	URL        string   `json:"url"`
	Method     string   `json:"method"`
	Resolve    []string `json:"resolve"`
	RedirectTo string   `json:"redirect_to"`
	Expect     string   `json:"expect"` // allow or deny
	Why        string   `json:"why"`
	Category   string   `json:"category"`
	Soft       bool     `json:"soft"`
}

func loadURLCases(t testing.TB) []urlCase {
	t.Helper()
	f, err := os.Open("testdata/urls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []urlCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c urlCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("urls.jsonl: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// examplePolicy is the policy the README of the shared examples defines.
func examplePolicy() *Policy {
	return &Policy{Allow: []string{"https://api.github.com", "https://pkg.go.dev"}}
}

// TestCheckURL_B4_PolicyExamples scores every labelled case of the shared
// urls.jsonl as its README says: `resolve` answers are injected as Resolve
// pins (and judged both statically and on the dial path), a `redirect_to`
// target is asked as its own URL. An allow where deny was expected is an
// unsafe miss and always fails; over-blocking fails unless the case is
// soft.
func TestCheckURL_B4_PolicyExamples(t *testing.T) {
	cases := loadURLCases(t)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	var right, unsafe, over int
	for _, c := range cases {
		p := examplePolicy()
		if len(c.Resolve) > 0 {
			p.Resolve = map[string][]string{"api.github.com:443": c.Resolve}
		}
		got := "allow"
		u, err := p.CheckURL(c.URL, c.Method)
		if err != nil {
			got = "deny"
			checkURLError(t, err, c.URL)
		} else if len(c.Resolve) > 0 {
			// The dial path, without connecting: the pinned answers must
			// be refused there too.
			if _, err := p.resolve(t.Context(), u.Host+":443"); err == nil {
				t.Errorf("%s resolve %v: dial path accepts the pinned answer", c.URL, c.Resolve)
			}
		}
		if c.RedirectTo != "" {
			if _, err := p.CheckURL(c.RedirectTo, c.Method); err != nil {
				got = "deny"
			}
		}
		switch {
		case got == c.Expect:
			right++
		case got == "allow":
			unsafe++
			t.Errorf("UNSAFE %s %q (%s): allowed; %s", c.Method, c.URL, c.Category, c.Why)
		default:
			over++
			if !c.Soft {
				t.Errorf("over-blocked %s %q (%s): %v; %s", c.Method, c.URL, c.Category, err, c.Why)
			}
		}
	}
	t.Logf("urls.jsonl: %d cases: %d right, %d unsafe, %d over-blocked", len(cases), right, unsafe, over)
}

// checkURLError checks that a refusal is a *sandbox.PolicyError with a known rule,
// a reason that does not reveal the allowlist, and no userinfo.
func checkURLError(t *testing.T, err error, raw string) *sandbox.PolicyError {
	t.Helper()
	pe, ok := errors.AsType[*sandbox.PolicyError](err)
	if !ok {
		t.Fatalf("CheckURL(%q) error %T is not a *sandbox.PolicyError", raw, err)
	}
	if !strings.HasPrefix(pe.Rule, "http.") || pe.Reason == "" {
		t.Errorf("CheckURL(%q): bad error %+v", raw, pe)
	}
	for _, secret := range []string{"api.github.com", "pkg.go.dev", "example"} {
		if strings.Contains(pe.Reason, secret) {
			t.Errorf("CheckURL(%q): reason %q reveals the allowlist", raw, pe.Reason)
		}
	}
	if strings.Contains(pe.Subject, "pass@") || strings.Contains(pe.Subject, "user@") {
		t.Errorf("CheckURL(%q): subject %q keeps the userinfo", raw, pe.Subject)
	}
	return pe
}

func TestCheckURL_B4_PolicyKnobs(t *testing.T) {
	var nilPolicy *Policy
	if _, err := nilPolicy.CheckURL("https://api.github.com/", ""); err == nil {
		t.Error("nil policy allows")
	}
	if _, err := (&Policy{}).CheckURL("https://api.github.com/", ""); err == nil {
		t.Error("zero policy allows")
	}
	// http only with AllowHTTP, and only where an entry says http.
	p := &Policy{Allow: []string{"http://intranet.test:8080", "https://api.github.com"}, AllowHTTP: true}
	for raw, allowed := range map[string]bool{
		"http://intranet.test:8080/": true, "http://intranet.test/": false,
		"http://api.github.com/": false, "https://intranet.test:8080/": false,
	} {
		if _, err := p.CheckURL(raw, ""); (err == nil) != allowed {
			t.Errorf("AllowHTTP: CheckURL(%q) = %v; want allowed %v", raw, err, allowed)
		}
	}
	// Methods narrows (or widens) the set; CONNECT never passes.
	p = &Policy{Allow: []string{"https://api.github.com"}, Methods: []string{"GET", "POST", "CONNECT"}}
	for m, allowed := range map[string]bool{"GET": true, "": true, "POST": true, "HEAD": false, "CONNECT": false} {
		if _, err := p.CheckURL("https://api.github.com/", m); (err == nil) != allowed {
			t.Errorf("Methods: %q = %v; want allowed %v", m, err, allowed)
		}
	}
	// An explicitly allowed address range lets an IP literal through.
	p = &Policy{Allow: []string{"https://10.1.2.3"}}
	if _, err := p.CheckURL("https://10.1.2.3/", ""); err == nil {
		t.Error("private literal allowed without AllowAddrs")
	}
	p.AllowAddrs = []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	if _, err := p.CheckURL("https://10.1.2.3/", ""); err != nil {
		t.Errorf("private literal inside AllowAddrs: %v", err)
	}
	// Resolve pins mixing a public and a private answer are refused.
	p = &Policy{Allow: []string{"https://api.github.com"},
		Resolve: map[string][]string{"API.github.com:443": {"140.82.121.6", "10.0.0.1"}}}
	if _, err := p.CheckURL("https://api.github.com/", ""); err == nil {
		t.Error("mixed public/private pins allowed")
	}
	p.Resolve = map[string][]string{"api.github.com:443": {"not-an-ip"}}
	if _, err := p.CheckURL("https://api.github.com/", ""); err == nil {
		t.Error("unparsable pin allowed")
	}
	p.Resolve = map[string][]string{"api.github.com:443": {"140.82.121.6", "2606:50c0:8000::64"}}
	if _, err := p.CheckURL("https://api.github.com/", ""); err != nil {
		t.Errorf("public pins refused: %v", err)
	}
}

func TestHTTPPolicy_Validate(t *testing.T) {
	good := &Policy{Allow: []string{"https://api.github.com", "pkg.go.dev/x/*", "http://h.test:8080", "https://[2001:4860::1]:8443"}}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	bad := &Policy{Allow: []string{"ftp://x.test", "https://x.test:", "https://bad host", "https://x.test./"}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate accepts broken entries")
	}
	for _, e := range bad.Allow {
		if !strings.Contains(err.Error(), e) {
			t.Errorf("Validate does not name %q: %v", e, err)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pass@host/x@y": "https://***@host/x@y",
		"https://host/a@b":           "https://host/a@b",
		"no scheme@x":                "no scheme@x",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q; want %q", in, got, want)
		}
	}
}

func BenchmarkCheckURL(b *testing.B) {
	p := adversarialPolicy()
	urls := []string{
		"https://api.github.com/repos/golang/go/issues?state=open",
		"https://docs.example.org/api/v1/items",
		"https://api.github.com.evil.com/",
		"https://user@api.github.com/",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = p.CheckURL(urls[i%len(urls)], "GET")
	}
}

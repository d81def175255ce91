package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// Every dial test talks to httptest servers on 127.0.0.1 only. Names are
// pinned with Resolve, so no test ever asks a DNS server.

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// testServer is an httptest server on 127.0.0.1 that counts requests.
type testServer struct {
	*httptest.Server
	port string
	hits atomic.Int64
}

func newTestServer(t *testing.T, tls bool, h http.HandlerFunc) *testServer {
	t.Helper()
	ts := &testServer{}
	count := func(w http.ResponseWriter, r *http.Request) { ts.hits.Add(1); h(w, r) }
	ts.Server = httptest.NewUnstartedServer(http.HandlerFunc(count))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // refused TLS handshakes are expected
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	ts.port = u.Port()
	return ts
}

// origin is "http://name:port" of the server under a pinned name.
func (ts *testServer) origin(name string) string { return "http://" + name + ":" + ts.port }

// policy allows the server under the names given, each pinned to
// 127.0.0.1, over http; with allowLoopback, 127.0.0.1 may be dialled.
func (ts *testServer) policy(allowLoopback bool, names ...string) *Policy {
	p := &Policy{AllowHTTP: true, Resolve: map[string][]string{}, Timeout: 5e9}
	for _, n := range names {
		p.Allow = append(p.Allow, ts.origin(n))
		p.Resolve[n+":"+ts.port] = []string{"127.0.0.1"}
	}
	if allowLoopback {
		p.AllowAddrs = loopback
	}
	return p
}

func wantPolicyError(t *testing.T, err error, rule string) {
	t.Helper()
	pe, ok := errors.AsType[*sandbox.PolicyError](err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *sandbox.PolicyError", err, err)
	}
	if rule != "" && pe.Rule != rule {
		t.Fatalf("rule %s (%s); want %s", pe.Rule, pe.Reason, rule)
	}
}

const page = `<html><head><title>Doc</title><script>x()</script></head>
<body><h1>Hello</h1><p>Some <a href="/next">next page</a>.</p></body></html>`

func TestFetch_B4_LoopbackPlumbing(t *testing.T) {
	var host atomic.Value
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		host.Store(r.Host)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	p := ts.policy(true, "fetch.test")
	res, err := p.Fetch(t.Context(), ts.origin("FETCH.test")+"/doc#x", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.ContentType != "text/html" || res.FinalURL != ts.origin("fetch.test")+"/doc" || res.Truncated {
		t.Errorf("result %+v", res)
	}
	if string(res.Body) != page {
		t.Errorf("body %q; want %q", res.Body, page)
	}
	if h := host.Load(); h != "fetch.test:"+ts.port {
		t.Errorf("Host header %v; a pin must not change the name sent", h)
	}
}

// TestFetch_B4_LoopbackRefusedAtDial proves that without the allowance
// the same dial is refused by the client itself, not only by CheckURL:
// for a pinned name, an IP literal, and a rebinding between the address
// check and the dial.
func TestFetch_B4_LoopbackRefusedAtDial(t *testing.T) {
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	p := ts.policy(false, "fetch.test")
	if _, err := p.Fetch(t.Context(), ts.origin("fetch.test")+"/", ""); err == nil {
		t.Fatal("Fetch reached loopback without the allowance")
	} else {
		wantPolicyError(t, err, RuleAddr)
	}
	c := p.Client()
	defer c.CloseIdleConnections()
	for _, raw := range []string{ts.origin("fetch.test") + "/", ts.URL + "/", "http://[::ffff:127.0.0.1]:" + ts.port + "/"} {
		_, err := c.Get(raw) // no CheckURL: the client alone must refuse
		wantPolicyError(t, err, RuleAddr)
	}
	// DNS rebinding: the checked answer is allowed, the dialled one is not.
	p = ts.policy(true, "fetch.test")
	p.rebind = func(ap netip.AddrPort) netip.AddrPort {
		return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), ap.Port())
	}
	_, err := p.Fetch(t.Context(), ts.origin("fetch.test")+"/", "")
	wantPolicyError(t, err, RuleAddr)
	if n := ts.hits.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
	// The control hook itself: TCP to checked addresses only.
	for _, c := range []struct{ network, addr string }{{"tcp4", "10.0.0.1:443"}, {"tcp6", "[::1]:443"},
		{"udp4", "8.8.8.8:53"}, {"tcp4", "bogus"}, {"tcp6", "[fe80::1%eth0]:443"}} {
		if p.control(t.Context(), c.network, c.addr, nil) == nil {
			t.Errorf("control(%s, %s) allowed", c.network, c.addr)
		}
	}
	if err := p.control(t.Context(), "tcp4", "127.0.0.1:443", nil); err != nil {
		t.Errorf("control refuses an allowed address: %v", err)
	}
}

// TestFetch_B4_MixedAnswers refuses a name whose answers mix an allowed
// and a refused address, whichever comes first.
func TestFetch_B4_MixedAnswers(t *testing.T) {
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {})
	for _, pins := range [][]string{{"127.0.0.1", "10.0.0.1"}, {"169.254.169.254", "127.0.0.1"}, {"127.0.0.1", "::1"}} {
		p := ts.policy(true, "fetch.test")
		p.Resolve["fetch.test:"+ts.port] = pins
		_, err := p.Fetch(t.Context(), ts.origin("fetch.test")+"/", "")
		wantPolicyError(t, err, RuleAddr)
		_, err = p.resolve(t.Context(), "fetch.test:"+ts.port)
		wantPolicyError(t, err, RuleAddr)
	}
	if n := ts.hits.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
}

func TestFetch_B4_TLSWithPin(t *testing.T) {
	ts := newTestServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	// The httptest certificate is for example.com: pin it like curl --resolve.
	p := &Policy{Allow: []string{"https://example.com:" + ts.port},
		Resolve: map[string][]string{"example.com:" + ts.port: {"127.0.0.1"}}, AllowAddrs: loopback}
	raw := "https://example.com:" + ts.port + "/v"
	if _, err := p.Fetch(t.Context(), raw, ""); err == nil || errors.As(err, new(*sandbox.PolicyError)) {
		t.Errorf("untrusted certificate: err = %v; want a TLS error", err)
	}
	p.rootCAs = x509.NewCertPool()
	p.rootCAs.AddCert(ts.Certificate())
	res, err := p.Fetch(t.Context(), raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != `{"ok":true}` || res.ContentType != "application/json" {
		t.Errorf("result %+v", res)
	}
}

func TestFetch_B4_Redirects(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/to":
			http.Redirect(w, r, strings.ReplaceAll(r.URL.Query().Get("u"), "PORT", ts.port), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/loop"):
			http.Redirect(w, r, r.URL.Path+"x", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "final "+r.URL.Path)
		}
	})
	p := ts.policy(true, "fetch.test", "internal.test")
	p.Resolve["internal.test:"+ts.port] = []string{"10.0.0.5"}
	cases := []struct{ target, rule string }{
		{"http://fetch.test:PORT/final", ""},
		{"/relative", ""},
		{"http://10.0.0.1/", RuleAddr},
		{"http://127.0.0.1:PORT/", RuleHostNotAllowed},
		{"http://[::1]:PORT/", RuleAddr},
		{"http://evil.test:PORT/", RuleHostNotAllowed},
		{"https://fetch.test:PORT/", RuleHostNotAllowed},
		{"gopher://fetch.test:PORT/_x", RuleScheme},
		{"http://user:pw@fetch.test:PORT/", RuleUserinfo},
		{"http://internal.test:PORT/", RuleAddr},
		{"/loop", RuleRedirect},
	}
	for _, c := range cases {
		raw := ts.origin("fetch.test") + "/to?u=" + url.QueryEscape(c.target)
		res, err := p.Fetch(t.Context(), raw, "GET")
		if c.rule == "" {
			if err != nil || !strings.HasPrefix(string(res.Body), "final /") {
				t.Errorf("redirect to %s: %v %+v", c.target, err, res)
			}
			continue
		}
		if err == nil {
			t.Errorf("redirect to %s followed: %+v", c.target, res)
			continue
		}
		wantPolicyError(t, err, c.rule)
	}
}

func TestFetch_B4_HeadersPerOrigin(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, ts.origin("other.test")+"/echo", http.StatusFound)
			return
		}
		fmt.Fprintf(w, "auth=%q referer=%q ua=%q", r.Header.Get("Authorization"), r.Header.Get("Referer"), r.UserAgent())
	})
	p := ts.policy(true, "fetch.test", "other.test")
	p.Headers = map[string]map[string]string{ts.origin("FETCH.test"): {"Authorization": "Bearer s3cret"}}
	res, err := p.Fetch(t.Context(), ts.origin("fetch.test")+"/echo", "")
	if err != nil || !strings.Contains(string(res.Body), `auth="Bearer s3cret"`) || !strings.Contains(string(res.Body), `ua="agentls"`) {
		t.Fatalf("configured header not sent: %v %+v", err, res)
	}
	res, err = p.Fetch(t.Context(), ts.origin("fetch.test")+"/hop", "")
	if err != nil || string(res.Body) != `auth="" referer="" ua="agentls"` {
		t.Errorf("redirect to another origin: %v %q", err, string(res.Body))
	}
}

func TestFetch_B4_NoProxyFromEnvironment(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy"} {
		t.Setenv(k, "http://127.0.0.1:1")
	}
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") })
	res, err := ts.policy(true, "fetch.test").Fetch(context.Background(), ts.origin("fetch.test")+"/", "")
	if err != nil || string(res.Body) != "direct" {
		t.Errorf("proxy from the environment used: %v", err)
	}
}

package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
)

// fetchApprover approves everything and keeps the last request.
type fetchApprover struct {
	last atomic.Pointer[tools.ApprovalRequest]
}

func (a *fetchApprover) Approve(_ context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	a.last.Store(req)
	return tools.ApprovalResponse{Answer: tools.AnswerApprove}, nil
}

// fetchFixture is an httptest server on 127.0.0.1 reachable as
// http://fetch.test:PORT through a Resolve pin, so no DNS is ever asked.
type fetchFixture struct {
	srv    *httptest.Server
	origin string
	hits   atomic.Int64
}

func newFetchFixture(t *testing.T) *fetchFixture {
	t.Helper()
	fx := &fetchFixture{}
	fx.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fx.hits.Add(1)
		switch r.URL.Path {
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("x", 5000))
		case "/loopback":
			http.Redirect(w, r, fx.srv.URL+"/", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>T</title><script>evil()</script><h2>Hi</h2><p>see <a href="/a">this</a></p>`)
		}
	}))
	t.Cleanup(fx.srv.Close)
	u, _ := url.Parse(fx.srv.URL)
	fx.origin = "http://fetch.test:" + u.Port()
	return fx
}

// policy allows the fixture; allowLoopback lets 127.0.0.1 be dialled.
func (fx *fetchFixture) policy(allowLoopback bool) *netguard.Policy {
	host := strings.TrimPrefix(fx.origin, "http://")
	p := &netguard.Policy{AllowHTTP: true, Allow: []string{fx.origin, "https://api.github.com"},
		Resolve: map[string][]string{host: {"127.0.0.1"}}, Timeout: 5 * time.Second}
	if allowLoopback {
		p.AllowAddrs = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	return p
}

// fetchRunner is a gateway with a fresh registry of the two tools. The
// policy lets http_fetch run without a prompt unless ap is set, when it
// asks as by default.
func fetchRunner(p *netguard.Policy, ap tools.Approver) *tools.Gateway {
	reg := tools.NewRegistry()
	reg.MustRegister(HTTPFetch(), Calculator())
	opts := &tools.GatewayOptions{Allowed: []string{"http_fetch", "calculator"}, Timeout: 10 * time.Second}
	if ap != nil {
		opts.Approver = ap
	} else {
		allow, _ := tools.ParseRule("http_fetch", tools.Allow, "user")
		opts.Policy = tools.DefaultPolicy(tools.ProfileEditor)
		opts.Policy.Rules = []tools.Rule{allow}
	}
	return newGateway(reg, &tools.Env{Limits: tools.Limits{HTTP: p}}, opts)
}

func fetchCall(t *testing.T, r *tools.Gateway, args any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := r.Call(t.Context(), "http_fetch", string(b))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHTTPFetch_B4_T5_Check: the static step denies what the policy
// refuses, with reasons that do not reveal the allowlist, and marks a GET
// or HEAD of an allowlisted URL safe (issue 10 item 15), with the
// normalized URL as subject and "METHOD URL" as preview.
func TestHTTPFetch_B4_T5_Check(t *testing.T) {
	check := HTTPFetch().Check
	p := &netguard.Policy{Allow: []string{"https://api.github.com", "https://docs.test/api/*"},
		Resolve: map[string][]string{"docs.test:443": {"10.0.0.1"}}}
	run := func(env *tools.Env, args string) *tools.Verdict {
		t.Helper()
		c, err := check(t.Context(), env, json.RawMessage(args))
		if err != nil || c == nil {
			t.Fatalf("check(%s): %v", args, err)
		}
		return c
	}
	c := run(&tools.Env{}, `{"url":"https://api.github.com/"}`)
	if c.Decision != tools.Deny || c.Code != tools.CodeHostNotAllowed || !strings.Contains(c.Reason, "network access is off") {
		t.Errorf("no policy: %+v", c)
	}
	env := &tools.Env{Limits: tools.Limits{HTTP: p}}
	c = run(env, `{"url":"https://API.github.com:443/repos/x?y=1#readme"}`)
	if c.Decision != tools.Allow || !c.Safe || c.Subject != "https://api.github.com/repos/x?y=1" || c.Preview != "GET https://api.github.com/repos/x?y=1" {
		t.Errorf("allowed URL: %+v", c)
	}
	if c = run(env, `{"url":"https://api.github.com/","method":"HEAD"}`); c.Preview != "HEAD https://api.github.com/" {
		t.Errorf("HEAD preview %q", c.Preview)
	}
	for _, d := range []struct {
		url  string
		code tools.Code
	}{
		{"https://github.com/", tools.CodeHostNotAllowed},
		{"https://api.github.com.evil.com/", tools.CodeHostNotAllowed},
		{"http://api.github.com/", tools.CodeHostNotAllowed},
		{"https://api.github.com:8443/", tools.CodeHostNotAllowed},
		{"https://docs.test/other", tools.CodeHostNotAllowed},
		{"https://docs.test/api/x", tools.CodeHostNotAllowed}, // pinned to a private address
		{"https://169.254.169.254/latest/meta-data/", tools.CodeHostNotAllowed},
		{"https://2130706433/", tools.CodeHostNotAllowed},
		{"https://user:hunter2@api.github.com/", tools.CodeInvalidArgs},
		{"api.github.com/repos", tools.CodeInvalidArgs},
	} {
		c := run(env, fmt.Sprintf(`{"url":%q}`, d.url))
		if c.Decision != tools.Deny || c.Code != d.code || c.Reason == "" || !strings.HasPrefix(c.Rule, "http.") {
			t.Errorf("%s: %+v; want deny %s", d.url, c, d.code)
		}
		for _, leak := range []string{"api.github.com", "docs.test", "hunter2", "/api/"} {
			if strings.Contains(c.Reason, leak) {
				t.Errorf("%s: reason %q reveals %q", d.url, c.Reason, leak)
			}
		}
	}
	p.Methods = []string{"GET"}
	if c := run(env, `{"url":"https://api.github.com/","method":"HEAD"}`); c.Decision != tools.Deny || c.Code != tools.CodeInvalidArgs {
		t.Errorf("HEAD with Methods [GET]: %+v", c)
	}
}

// TestHTTPFetch_B4_T3_Schema: the gateway refuses malformed arguments
// before the tool sees them, naming the field (T11).
func TestHTTPFetch_B4_T3_Schema(t *testing.T) {
	r := fetchRunner(&netguard.Policy{Allow: []string{"https://api.github.com"}}, nil)
	for _, c := range []struct {
		args  any
		field string
	}{
		{map[string]any{}, ""},
		{map[string]any{"url": ""}, "url"},
		{map[string]any{"url": "https://api.github.com/" + strings.Repeat("a", 4096)}, "url"},
		{map[string]any{"url": "https://api.github.com/", "method": "POST"}, "method"},
		{map[string]any{"url": "https://api.github.com/", "method": "get"}, "method"},
		{map[string]any{"url": 7}, "url"},
		{map[string]any{"url": "https://api.github.com/", "headers": map[string]string{"Authorization": "x"}}, "*"},
	} {
		wantErr(t, fetchCall(t, r, c.args), tools.CodeInvalidArgs, c.field)
	}
}

// TestHTTPFetch_B4_Run fetches through the gateway from a loopback
// server that the policy allows explicitly.
func TestHTTPFetch_B4_Run(t *testing.T) {
	fx := newFetchFixture(t)
	r := fetchRunner(fx.policy(true), nil)
	got := wantOK(t, fetchCall(t, r, map[string]string{"url": fx.origin + "/page#frag"}))
	want := "status: 200 OK\ncontent-type: text/html\nurl: " + fx.origin + "/page\n\nT\n\n## Hi\n\nsee this (" + fx.origin + "/a)"
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
	got = wantOK(t, fetchCall(t, r, map[string]string{"url": fx.origin + "/", "method": "HEAD"}))
	if got != "status: 200 OK\ncontent-type: text/html\nurl: "+fx.origin+"/" {
		t.Errorf("HEAD result %q", got)
	}
	// Limits: the body is cut at MaxBytes, and a slow server times out.
	p := fx.policy(true)
	p.MaxBytes, p.Timeout = 100, 300*time.Millisecond
	r = fetchRunner(p, nil)
	got = wantOK(t, fetchCall(t, r, map[string]string{"url": fx.origin + "/big"}))
	wantContains(t, got, strings.Repeat("x", 100)+"\n\n[body truncated at 100 bytes]")
	te := wantErr(t, fetchCall(t, r, map[string]string{"url": fx.origin + "/slow"}), tools.CodeTimeout, "url")
	wantContains(t, te.Reason, "timed out")
}

// TestHTTPFetch_B4_T11_Refusals: refusals at every layer are structured
// host_not_allowed errors, and the server never sees the request.
func TestHTTPFetch_B4_T11_Refusals(t *testing.T) {
	fx := newFetchFixture(t)
	// Without the loopback allowance the pinned answer is refused.
	// The check's refusal and Run's are the same tool error, field included.
	te := wantErr(t, fetchCall(t, fetchRunner(fx.policy(false), nil), map[string]string{"url": fx.origin + "/"}), tools.CodeHostNotAllowed, "url")
	wantContains(t, te.Reason, "refused address")
	// No network policy at all.
	te = wantErr(t, fetchCall(t, fetchRunner(nil, nil), map[string]string{"url": fx.origin + "/"}), tools.CodeHostNotAllowed, "")
	wantContains(t, te.Reason, "network access is off")
	// A redirect to the loopback literal is refused while following it.
	te = wantErr(t, fetchCall(t, fetchRunner(fx.policy(true), nil), map[string]string{"url": fx.origin + "/loopback"}), tools.CodeHostNotAllowed, "url")
	if strings.Contains(te.Reason, "fetch.test") || strings.Contains(te.Reason, "api.github.com") {
		t.Errorf("reason reveals the allowlist: %s", te.Reason)
	}
	if n := fx.hits.Load(); n != 1 { // only /loopback itself
		t.Errorf("server saw %d requests; want 1", n)
	}
	// Run does not rely on the check having run.
	res, err := HTTPFetch().Run(t.Context(), &tools.Env{}, json.RawMessage(`{"url":"`+fx.origin+`/"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, res, tools.CodeHostNotAllowed, "")
	res, err = HTTPFetch().Run(t.Context(), &tools.Env{Limits: tools.Limits{HTTP: fx.policy(false)}}, json.RawMessage(`{"url":"`+fx.srv.URL+`/"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, res, tools.CodeHostNotAllowed, "url")
}

// TestHTTPFetch_Issue10_15_AllowlistedGetIsNotAsked: a GET of a URL on
// the user's allowlist is the user's decision already and runs without a
// question (it asked for every fetch before); a user rule can still ask
// or deny, and where the risk default is deny (CI) it stays denied. The
// user sees method and URL when asked.
func TestHTTPFetch_Issue10_15_AllowlistedGetIsNotAsked(t *testing.T) {
	fx := newFetchFixture(t)
	reg := tools.NewRegistry()
	reg.MustRegister(HTTPFetch())
	runner := func(p *tools.Policy, ap tools.Approver) *tools.Gateway {
		return newGateway(reg, &tools.Env{Limits: tools.Limits{HTTP: fx.policy(true)}}, &tools.GatewayOptions{Allowed: []string{"http_fetch"}, Policy: p, Approver: ap})
	}
	// Nobody to ask: an allowlisted GET still runs.
	wantOK(t, fetchCall(t, runner(nil, nil), map[string]string{"url": fx.origin + "/"}))
	if n := fx.hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	ci := tools.DefaultPolicy(tools.ProfileCI)
	wantErr(t, fetchCall(t, runner(ci, nil), map[string]string{"url": fx.origin + "/"}), tools.CodeHostNotAllowed, "")
	asking := tools.DefaultPolicy(tools.ProfileEditor)
	r, _ := tools.ParseRule("http_fetch", tools.Ask, "user")
	asking.Rules = []tools.Rule{r}
	wantErr(t, fetchCall(t, runner(asking, nil), map[string]string{"url": fx.origin + "/"}), tools.CodeApprovalRequired, "")
	ap := &fetchApprover{}
	wantOK(t, fetchCall(t, runner(asking, ap), map[string]string{"url": fx.origin + "/x#y"}))
	if req := ap.last.Load(); req == nil || req.Preview != "GET "+fx.origin+"/x" || req.Risk != tools.RiskNetwork {
		t.Errorf("approval request %+v", req)
	}
	if n := fx.hits.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

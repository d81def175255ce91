package mcp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

func start(t *testing.T, servers map[string]ServerConfig) *Manager {
	t.Helper()
	m := Start(t.Context(), &Options{Servers: servers, Dir: t.TempDir(), StartTimeout: 20 * time.Second})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func gatewayOf(t *testing.T, m *Manager, ap tools.Approver) *tools.Gateway {
	t.Helper()
	ts := m.Tools()
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name)
	}
	r, err := tools.NewGateway(tools.NewRegistry(), &tools.GatewayOptions{Root: t.TempDir(), Tools: ts, Allowed: names, Approver: ap})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type approveAll struct{}

func (approveAll) Approve(context.Context, *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	return tools.ApprovalResponse{Answer: tools.AnswerApprove}, nil
}

func callOK(t *testing.T, r *tools.Gateway, name, args string) tools.Result {
	t.Helper()
	res, err := r.Call(t.Context(), name, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func status(m *Manager, name string) Status {
	for _, s := range m.Servers() {
		if s.Name == name {
			return s
		}
	}
	return Status{}
}

// TestManager_B6_StartSkipsBroken: servers start in parallel; one whose
// command is missing, one that exits at start and an invalid entry are
// skipped with their reasons, and the good one's tools are offered.
func TestManager_B6_StartSkipsBroken(t *testing.T) {
	m := start(t, map[string]ServerConfig{
		"good":     self(t),
		"missing":  {Command: "no-such-mcp-server-xyz"},
		"dies":     self(t, "MCPTEST_CRASH_AT_START=1"),
		"sse":      {URL: "https://example.com/sse", Type: "sse"},
		"off":      {Command: "whatever", Disabled: true},
		"!!!":      self(t),
		"nocmd":    {},
		"badurl":   {URL: "ftp://x"},
		"relative": {Command: "./not-here"},
	})
	for name, want := range map[string]string{
		"good": "running", "missing": "failed", "dies": "failed", "sse": "failed", "off": "disabled", "!!!": "failed",
		"nocmd": "failed", "badurl": "failed", "relative": "failed",
	} {
		if got := status(m, name); string(got.State) != want {
			t.Errorf("%s: %s (%s), want %s", name, got.State, got.Why, want)
		}
	}
	if why := status(m, "dies").Why; !strings.Contains(why, "refusing to start") {
		t.Errorf("a server that died at start: %q, want its stderr", why)
	}
	if why := status(m, "missing").Why; !strings.Contains(why, "not found") {
		t.Errorf("missing command: %q", why)
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name)
		if tl.Risk != tools.RiskMCP {
			t.Errorf("%s has risk %s", tl.Name, tl.Risk)
		}
	}
	if got := strings.Join(names, " "); got != "mcp__good__big mcp__good__crash mcp__good__echo mcp__good__sleep mcp__good__verbose_tool" {
		t.Errorf("tools: %s", got)
	}
}

// TestManager_B6_CallThroughGateway: an MCP tool call passes the gateway:
// the server's schema is checked before the call, the default policy
// asks, and the answer comes back.
func TestManager_B6_CallThroughGateway(t *testing.T) {
	m := start(t, map[string]ServerConfig{"s": self(t)})
	r := gatewayOf(t, m, approveAll{})
	if res := callOK(t, r, "mcp__s__echo", `{"message":"hi"}`); res.IsError || res.Content != "echo: hi" {
		t.Errorf("echo: %+v", res)
	}
	if res := callOK(t, r, "mcp__s__echo", `{"message":7}`); res.Code != tools.CodeInvalidArgs {
		t.Errorf("a wrong type reached the server: %+v", res)
	}
	if v := r.Vet(t.Context(), "mcp__s__echo", `{"message":"hi"}`); v.Decision != tools.Ask || v.Rule != "default: risk mcp" {
		t.Errorf("verdict %+v, want the default ask for risk mcp", v)
	}
	deny := gatewayOf(t, m, nil)
	if res := callOK(t, deny, "mcp__s__echo", `{"message":"hi"}`); res.Code != tools.CodeApprovalRequired {
		t.Errorf("without an approver: %+v", res)
	}
}

// TestManager_A15_T9_BigResultSpills: an MCP tool's large output is
// spilled like any tool's.
func TestManager_A15_T9_BigResultSpills(t *testing.T) {
	m := start(t, map[string]ServerConfig{"s": self(t)})
	res := callOK(t, gatewayOf(t, m, approveAll{}), "mcp__s__big", `{"chars":100000}`)
	if res.IsError || len(res.Content) > tools.MaxResultChars || !strings.Contains(res.Content, tools.ResultsDir) {
		t.Errorf("big result: %d chars, %q", len(res.Content), res.Content[:min(200, len(res.Content))])
	}
}

// TestManager_B6_CrashRestartsOnceThenRemoves: the first crash restarts
// the server (the next call works), the second removes its tools and
// calls get tool_unavailable naming the server.
func TestManager_B6_CrashRestartsOnceThenRemoves(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	m := start(t, map[string]ServerConfig{"crashy": self(t, "MCPTEST_STARTS="+starts), "other": self(t)})
	r := gatewayOf(t, m, approveAll{})
	res := callOK(t, r, "mcp__crashy__crash", `{}`)
	if res.Code != tools.CodeInternal || !strings.Contains(res.Content, "crashed during the call and was restarted") {
		t.Fatalf("first crash: %+v", res)
	}
	if res := callOK(t, r, "mcp__crashy__echo", `{"message":"again"}`); res.Content != "echo: again" {
		t.Fatalf("after the restart: %+v", res)
	}
	if st := status(m, "crashy"); st.State != StateRunning || st.Restarts != 1 {
		t.Errorf("after one crash: %+v", st)
	}
	res = callOK(t, r, "mcp__crashy__crash", `{}`)
	if res.Code != tools.CodeToolUnavailable || !strings.Contains(res.Content, "crashy") {
		t.Fatalf("second crash: %+v", res)
	}
	res = callOK(t, r, "mcp__crashy__echo", `{"message":"x"}`)
	if res.Code != tools.CodeToolUnavailable || !strings.Contains(res.Content, "MCP server crashy were removed") {
		t.Errorf("after removal: %+v", res)
	}
	for _, tl := range m.Tools() {
		if strings.HasPrefix(tl.Name, "mcp__crashy__") {
			t.Errorf("removed server still offers %s", tl.Name)
		}
	}
	if res := callOK(t, r, "mcp__other__echo", `{"message":"ok"}`); res.Content != "echo: ok" {
		t.Errorf("the other server suffered: %+v", res)
	}
}

// TestManager_B6_IdleCrash: a server that dies between calls is restarted
// at the next call, which then works.
func TestManager_B6_IdleCrash(t *testing.T) {
	m := start(t, map[string]ServerConfig{"s": self(t)})
	r := gatewayOf(t, m, approveAll{})
	m.servers[0].mu.Lock()
	pgid := int(m.servers[0].conn.pgid.Load())
	closed := m.servers[0].conn.closed
	m.servers[0].mu.Unlock()
	killGroup(t, pgid)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the session did not notice its server died")
	}
	if res := callOK(t, r, "mcp__s__echo", `{"message":"back"}`); res.Content != "echo: back" {
		t.Errorf("after an idle crash: %+v", res)
	}
	if st := status(m, "s"); st.Restarts != 1 {
		t.Errorf("restarts %d", st.Restarts)
	}
}

// TestManager_B6_ChangedDefinitionsOnRestart: a server that comes back
// from a restart with other tool definitions (a rug pull) is removed.
func TestManager_B6_ChangedDefinitionsOnRestart(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	m := start(t, map[string]ServerConfig{"s": self(t, "MCPTEST_STARTS="+starts, "MCPTEST_CHANGE_ON_RESTART=1")})
	r := gatewayOf(t, m, approveAll{})
	if res := callOK(t, r, "mcp__s__crash", `{}`); res.Code != tools.CodeToolUnavailable {
		t.Fatalf("crash with changed definitions: %+v", res)
	}
	if st := status(m, "s"); st.State != StateRemoved || !strings.Contains(st.Why, "other tool definitions") {
		t.Errorf("status %+v", st)
	}
	// Issue 25: the removed server's tools are no longer offered: the
	// run's gateway leaves them out of the model's next request.
	for _, tool := range r.Tools() {
		if strings.HasPrefix(tool.Name, "mcp__s__") {
			t.Errorf("the removed server's tool %s is still offered", tool.Name)
		}
	}
}

// TestManager_B6_CallTimeout: a call past the server's timeout is a
// timeout result, and the server stays up.
func TestManager_B6_CallTimeout(t *testing.T) {
	c := self(t)
	c.Timeout = 0.3
	m := start(t, map[string]ServerConfig{"s": c})
	r := gatewayOf(t, m, approveAll{})
	begin := time.Now()
	res := callOK(t, r, "mcp__s__sleep", `{"ms":10000}`)
	if res.Code != tools.CodeTimeout || time.Since(begin) > 5*time.Second {
		t.Errorf("sleep past the timeout: %+v after %s", res, time.Since(begin))
	}
	if res := callOK(t, r, "mcp__s__echo", `{"message":"alive"}`); res.Content != "echo: alive" {
		t.Errorf("after a timeout: %+v", res)
	}
}

// TestManager_B6_UntrustedDescriptions: descriptions are capped, have no
// control characters, and say where they come from.
func TestManager_B6_UntrustedDescriptions(t *testing.T) {
	m := start(t, map[string]ServerConfig{"s": self(t)})
	for _, tl := range m.Tools() {
		if tl.Name != "mcp__s__verbose_tool" {
			continue
		}
		if len(tl.Description) > MaxDescription+200 || strings.ContainsAny(tl.Description, "\x1b\n") ||
			!strings.HasPrefix(tl.Description, "[MCP server s, tool Verbose-Tool; untrusted description]") {
			t.Errorf("description (%d bytes): %q", len(tl.Description), tl.Description[:min(300, len(tl.Description))])
		}
		return
	}
	t.Fatal("no verbose tool")
}

// TestManager_A17_Accept: a server whose tool definitions the caller does
// not accept is stopped and never offered.
func TestManager_A17_Accept(t *testing.T) {
	var gotHash string
	m := Start(t.Context(), &Options{Servers: map[string]ServerConfig{"s": self(t)}, Accept: func(server, h string) error {
		gotHash = h
		return errors.New("tool definitions changed since you trusted them")
	}})
	defer m.Close()
	if st := status(m, "s"); st.State != StateFailed || !strings.Contains(st.Why, "changed since") || len(m.Tools()) != 0 || len(gotHash) != 64 {
		t.Errorf("status %+v, %d tools, hash %q", st, len(m.Tools()), gotHash)
	}
}

// TestToolName_B6: names are sanitised to [a-z0-9_], "__" only separates
// the parts, and long names stay within 64 bytes, distinct.
func TestToolName_B6(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{"everything", "echo", "mcp__everything__echo"},
		{"Everything", "get-sum", "mcp__everything__get_sum"},
		{"my server", "a__b", "mcp__my_server__a_b"},
		{"x", "ünïcode", "mcp__x__n_code"},
		{"---", "echo", ""},
		{"x", "", ""},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	long := strings.Repeat("a", 80)
	a, b := ToolName("s", long+"1"), ToolName("s", long+"2")
	if len(a) > 64 || len(b) > 64 || a == b {
		t.Errorf("long names %q %q", a, b)
	}
}

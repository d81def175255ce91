package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	agentsession "github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/ext"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// runEventCaps is a client that shows the run view (agentls/runEvent).
func runEventCaps() map[string]any {
	return map[string]any{"experimental": map[string]any{"agentls": map[string]any{"runEvents": true}}}
}

// withExtensions starts the user's extensions of cfg, as serve does.
func withExtensions(cfg *ext.Config) func(*lspserver.Options) {
	return func(o *lspserver.Options) {
		o.StartExtensions = func(ctx context.Context, root string, _ tools.Approver) lspserver.Extensions {
			return ext.Start(ctx, &ext.Options{Root: root, User: cfg})
		}
	}
}

// hasText reports whether the params of m contain every one of texts.
func hasText(texts ...string) func(lsptest.Message) bool {
	return func(m lsptest.Message) bool {
		for _, s := range texts {
			if !strings.Contains(string(m.Params), s) {
				return false
			}
		}
		return true
	}
}

// runWarning reports whether the run view got a warning line with every
// one of texts.
func (h *harness) runWarning(texts ...string) bool {
	for _, m := range h.c.Received(command.MethodRunEvent) {
		var ev command.RunEvent
		if json.Unmarshal(m.Params, &ev) != nil || ev.Kind != command.RunLog || ev.Level != "warning" {
			continue
		}
		if hasText(texts...)(lsptest.Message{Params: m.Params}) {
			return true
		}
	}
	return false
}

// wantMessage waits for a notification of method with every one of texts.
func (h *harness) wantMessage(method string, texts ...string) {
	h.t.Helper()
	if _, err := h.c.WaitNotification(wait, method, hasText(texts...)); err != nil {
		h.t.Errorf("no %s with %q: %v", method, texts, err)
	}
}

// A13, issue 26 item 6: a hook that fails while a run goes on is told to
// the editor's user — the log (window/logMessage) and the run's view —
// not only to serve's stderr.
func TestServer_A13_Issue26_HookFailureReachesTheEditor(t *testing.T) {
	script := `{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}` + "\n" + `{"content":"ok"}`
	cfg := &ext.Config{Hooks: hooks.Config{hooks.PreToolUse: {{Hooks: []hooks.Command{{Type: "command", Command: "echo hook broke >&2; exit 1"}}}}}}
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"}, caps: runEventCaps(), opts: withExtensions(cfg)})
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "look"})
	h.wantMessage("window/logMessage", "PreToolUse hook", "exit status 1", "hook broke")
	if !h.runWarning("PreToolUse hook", "exit status 1") {
		t.Error("the run's view has no line about the failed hook")
	}
}

// B6, issue 26 item 6: an MCP server that does not start is told to the
// editor's user, who has to act: window/logMessage and window/showMessage.
func TestServer_B6_Issue26_MCPStartFailureReachesTheEditor(t *testing.T) {
	cfg := &ext.Config{MCPServers: map[string]mcp.ServerConfig{"tickets": {Command: filepath.Join(t.TempDir(), "no-such-server")}}}
	h := start(t, setup{script: `{"content":"ok"}`, files: map[string]string{"a.go": "package a\n"}, caps: runEventCaps(), opts: withExtensions(cfg)})
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "look"})
	h.wantMessage("window/logMessage", "MCP server tickets did not start")
	h.wantMessage("window/showMessage", "MCP server tickets did not start")
}

// B6, issue 26 item 6: an MCP server that crashes is restarted once; when
// it crashes again its tools are removed, and the editor's user is told
// both, in the log, in the run's view, and (the removal) as a message.
func TestServer_B6_Issue26_MCPRemovalReachesTheEditor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"c1","name":"mcp__t__crash","arguments":{}}]}`,
		`{"tool_calls":[{"id":"c2","name":"mcp__t__crash","arguments":{}}]}`,
		`{"content":"done"}`,
	}, "\n")
	cfg := &ext.Config{MCPServers: map[string]mcp.ServerConfig{"t": {Command: exe, Env: mcptest.Env()}}}
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"}, caps: runEventCaps(), opts: withExtensions(cfg),
		handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.Reply(map[string]string{"title": command.ActionApprove})}})
	h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "instruction": "crash it"})
	h.wantMessage("window/logMessage", "MCP server t crashed", "restarting it once")
	h.wantMessage("window/logMessage", "MCP server t's tools were removed")
	h.wantMessage("window/showMessage", "MCP server t's tools were removed")
	if !h.runWarning("MCP server t's tools were removed") {
		t.Error("the run's view has no line about the removed tools")
	}
}

// A11, A16, issue 26 item 6: a session whose log was damaged is recovered
// when a run continues it, and the editor's user is told: the log, a
// message, and the run's own view.
func TestServer_A16_Issue26_RecoveredSessionReachesTheEditor(t *testing.T) {
	state := t.TempDir()
	h := start(t, setup{script: `{"content":"one"}` + "\n" + `{"content":"two"}`, files: map[string]string{"a.go": "package a\n"},
		caps: runEventCaps(), opts: func(o *lspserver.Options) { o.StateDir = state }})
	first := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "look"})
	log := filepath.Join(agentsession.WorkspaceDir(state, h.root), first.SessionID+".jsonl")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"kind\":\"msg\",\"crc\":\"00000000\"}\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "again", "sessionId": first.SessionID})
	h.wantMessage("window/logMessage", "session "+first.SessionID, "damaged")
	h.wantMessage("window/showMessage", "session "+first.SessionID, "damaged")
	if !h.runWarning("session "+first.SessionID, "damaged") {
		t.Error("the run's view has no line about the recovered session")
	}
}

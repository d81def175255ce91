package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// startDetached sends a detached command and returns the run it started.
func (h *harness) startDetached(name string, arg map[string]any) command.Started {
	h.t.Helper()
	arg["detach"] = true
	var started command.Started
	err := h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, &started)
	if err != nil || !started.Started {
		h.t.Fatalf("%s: reply %+v, %v", name, started, err)
	}
	return started
}

// TestExecute_E19_DetachedCancelAndContinue: a detached run waiting for
// an answer is cancelled with agentls.cancel by its session, and says so
// in its result message; a detached plan then continues that session (its
// second run).
func TestExecute_E19_DetachedCancelAndContinue(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"tool_calls":[{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"return 1 }","new_text":"return 10 }"}]}}]}`,
		`{"content":"Planned: nothing more."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, false, false),
		clientInfo: eglotInfo, handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.NeverAnswer}})
	run := h.startDetached(command.Execute, execArg(h))
	if _, err := h.c.WaitFor(wait, "window/showMessageRequest", nil); err != nil {
		t.Fatal(err)
	}
	var cancelled command.CancelResult
	if err := h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{"command": command.Cancel,
		"arguments": []any{map[string]any{"sessionId": run.SessionID}}}, &cancelled); err != nil {
		t.Fatal(err)
	}
	if len(cancelled.Cancelled) != 1 || cancelled.Cancelled[0] != run.SessionID {
		t.Errorf("cancelled %v, want the detached run's session %s", cancelled.Cancelled, run.SessionID)
	}
	if _, err := h.c.WaitText(wait, "window/showMessage", "agentls execute cancelled (run "+run.RunID+")"); err != nil {
		t.Fatal(err)
	}
	plan := h.startDetached(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "what is left?", "sessionId": run.SessionID})
	if plan.SessionID != run.SessionID || plan.RunID != run.SessionID+"-2" {
		t.Errorf("plan %+v, want the session's second run", plan)
	}
	end, err := h.c.WaitText(wait, "window/showMessage", "agentls plan done (run "+plan.RunID+")")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(end.Params), "Planned: nothing more.") || strings.Contains(string(end.Params), "edits:") {
		t.Errorf("plan result %s, want the answer and no edit counts", end.Params)
	}
}

// TestExecute_E19_DetachedRunEndsWithConnection: a detached run still
// waiting for an answer when the client goes away is stopped, and Serve
// returns (TestMain checks that no goroutine is left).
func TestExecute_E19_DetachedRunEndsWithConnection(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, false, false),
		clientInfo: eglotInfo, handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.NeverAnswer}})
	h.startDetached(command.Execute, execArg(h))
	if _, err := h.c.WaitFor(wait, "window/showMessageRequest", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	select {
	case <-h.c.ServeDone():
	case <-time.After(wait):
		t.Errorf("Serve did not return within %v with a detached run in flight", wait)
	}
}

// TestExecute_E19_DetachedBadTargetIsTheReplysError: what fails before a
// detached run starts (here a file outside the workspace) is the reply's
// error, as for any command, and nothing is reported afterwards.
func TestExecute_E19_DetachedBadTargetIsTheReplysError(t *testing.T) {
	h := start(t, setup{script: editScript, caps: clientCaps(true, false, false), clientInfo: eglotInfo})
	raw, _ := json.Marshal(map[string]any{"uri": "file:///etc/passwd", "instruction": "x", "detach": true})
	err := h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{"command": command.Execute, "arguments": []json.RawMessage{raw}}, nil)
	if reason := wantCode(t, err, -32803); reason != "policy.path_escape" {
		t.Errorf("reason %q, want policy.path_escape", reason)
	}
	if n := len(h.c.Received("window/showMessage")); n != 0 {
		t.Errorf("%d showMessage after a run that never started", n)
	}
}

// TestExecute_E19_DetachedRunReleasesItsSession: a detached run that
// continues a session gives the session back when it ends (A16, issue
// 26): 30 detached plans, each continuing a session of its own, leave the
// open files where they were.
func TestExecute_E19_DetachedRunReleasesItsSession(t *testing.T) {
	const n = 30
	lines := make([]string, 2*n)
	for i := range lines {
		lines[i] = `{"content":"ok"}`
	}
	h := start(t, setup{script: strings.Join(lines, "\n"), files: map[string]string{"a.go": "package a\n"}, clientInfo: eglotInfo,
		caps: clientCaps(true, false, false), opts: func(o *lspserver.Options) { o.StateDir = t.TempDir() }})
	var ids []string
	for range n {
		ids = append(ids, h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "look"}).SessionID)
	}
	before := openFDs(t)
	for _, id := range ids {
		run := h.startDetached(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "again", "sessionId": id})
		if _, err := h.c.WaitText(wait, "window/showMessage", "agentls plan done (run "+run.RunID+")"); err != nil {
			t.Fatal(err)
		}
	}
	after := openFDs(t)
	t.Logf("open files: %d before %d detached runs, %d after", before, n, after)
	if after-before > 5 {
		t.Errorf("open files grew from %d to %d over %d detached runs: their sessions are not released", before, after, n)
	}
}

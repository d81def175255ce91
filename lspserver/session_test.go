package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// revert runs agentls.revert with args (nil: none).
func (h *harness) revert(args any) (*command.RevertResult, error) {
	h.t.Helper()
	params := &protocol.ExecuteCommandParams{Command: command.Revert}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			h.t.Fatal(err)
		}
		params.Arguments = append(params.Arguments, raw)
	}
	var res command.RevertResult
	if err := h.c.Call(h.ctx(), "workspace/executeCommand", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// texts returns the role and text of each message of a model request.
func (r modelRequest) texts() []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role+": "+m.text())
	}
	return out
}

// A16: plan, then "execute this plan": an execute with the plan's
// sessionId and no instruction continues the session; the model sees the
// plan conversation and "carry out the plan above"; the result carries the
// session and a new run ID.
func TestServer_A16_ExecuteThisPlan(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"content":"Plan: rename A to B in a.go."}`,
		`{"content":"Renamed."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n\nfunc A() {}\n"}, caps: fullCaps(true)})
	plan := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "rename A to B"})
	if plan.SessionID == "" || plan.RunID != plan.SessionID+"-1" {
		t.Fatalf("plan result: session %q run %q", plan.SessionID, plan.RunID)
	}
	exec := h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "sessionId": plan.SessionID})
	if exec.SessionID != plan.SessionID || exec.RunID != plan.SessionID+"-2" || exec.Status != "done" {
		t.Fatalf("execute result %+v", exec)
	}
	reqs := h.modelRequests()
	got := reqs[2].texts()
	if len(got) != 6 || !strings.Contains(got[1], "rename A to B") || got[2] != "assistant: " ||
		!strings.HasPrefix(got[3], "tool: ") || got[4] != "assistant: Plan: rename A to B in a.go." ||
		!strings.Contains(got[5], command.ExecutePlanInstruction) {
		t.Errorf("first request of the execute:\n%s", strings.Join(got, "\n"))
	}
	if names := reqs[2].toolNames(); !strings.Contains(strings.Join(names, ","), "edit_file") {
		t.Errorf("the execute run offers %v", names)
	}
	// a plan without an instruction is still refused
	if _, err := h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "sessionId": plan.SessionID}); err == nil {
		t.Error("a plan without an instruction ran")
	}
}

// A16: an unknown sessionId is a RequestFailed with reason
// session.not_found, and so are malformed ones.
func TestServer_A16_UnknownSession(t *testing.T) {
	h := start(t, setup{script: `{"content":"x"}`, files: map[string]string{"a.go": "package a\n"}})
	for _, id := range []string{"ffffffffffff", "../../etc", "x"} {
		_, err := h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x", "sessionId": id})
		if r := wantCode(t, err, lspserver.CodeRequestFailed); r != "session.not_found" {
			t.Errorf("%q: reason %q", id, r)
		}
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// A11: two commands on one session, sent back to back, run one after the
// other in the order they came: the second run starts after the first
// ended and sees its whole conversation.
func TestServer_A11_SessionCommandsQueue(t *testing.T) {
	script := strings.Join([]string{
		`{"content":"started"}`,
		`{"content":"answer one","delay_ms":400}`,
		`{"content":"answer two"}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"}})
	first := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "start"})
	call := func(instruction string) *lsptest.Pending {
		p, err := h.c.Go(h.ctx(), "workspace/executeCommand", &protocol.ExecuteCommandParams{Command: command.Plan,
			Arguments: []protocol.LSPAny{protocol.LSPAny(mustJSON(t, map[string]any{"uri": h.uri("a.go"), "instruction": instruction, "sessionId": first.SessionID}))}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, two := call("one"), call("two")
	for _, p := range []*lsptest.Pending{one, two} {
		if _, err := p.Wait(wait); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.modelRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	a, b := reqs[1].texts(), reqs[2].texts()
	if !strings.Contains(a[len(a)-1], "one") || !strings.Contains(b[len(b)-1], "two") {
		t.Errorf("runs out of order:\n%s\n--\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if !strings.Contains(strings.Join(b, "\n"), "assistant: answer one") {
		t.Errorf("the second run did not see the first run's answer:\n%s", strings.Join(b, "\n"))
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A16: agentls.revert restores what a run changed through
// workspace/applyEdit (the file is back on disk, the result lists it),
// and refuses a file the user changed since as stale, sending nothing for
// it.
func TestServer_A16_RevertThroughApplyEdit(t *testing.T) {
	const orig = "package a\n\nfunc A() {}\n"
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"tool_calls":[{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"func A","new_text":"func B"}]}}]}`,
		`{"content":"Renamed."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": orig}, caps: clientCaps(true, true, false)})
	ed := newEditor(h)
	run := h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "instruction": "rename"})
	if run.Edits.Applied != 1 || h.read("a.go") != "package a\n\nfunc B() {}\n" {
		t.Fatalf("run: %+v, a.go %q", run, h.read("a.go"))
	}
	before := len(h.c.Received("workspace/applyEdit"))
	res, err := h.revert(map[string]any{"runId": run.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reverted != run.RunID || res.RunID != run.SessionID+"-2" || len(res.Restored) != 1 || len(res.Stale)+len(res.Failed) != 0 {
		t.Fatalf("revert %+v", res)
	}
	if got := h.c.Received("workspace/applyEdit"); len(got) != before+1 || !strings.Contains(string(got[len(got)-1].Params), "agentls: revert a.go") {
		t.Errorf("the revert did not go through applyEdit: %d requests", len(got)-before)
	}
	if got := h.read("a.go"); got != orig {
		t.Errorf("a.go after the revert: %q", got)
	}
	// Revert the revert, then the user types: the next revert is stale.
	if _, err := h.revert(map[string]any{"runId": res.RunID}); err != nil {
		t.Fatal(err)
	}
	ed.typeIn("a.go", "package a\n\nfunc Mine() {}\n")
	before = len(h.c.Received("workspace/applyEdit"))
	stale, err := h.revert(map[string]any{"sessionId": run.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if len(stale.Stale) != 1 || stale.Stale[0].Path != "a.go" || len(stale.Restored) != 0 {
		t.Errorf("revert after the user's edit: %+v", stale)
	}
	if n := len(h.c.Received("workspace/applyEdit")) - before; n != 0 {
		t.Errorf("%d applyEdit requests for a stale revert", n)
	}
	if text, _ := ed.text("a.go"); text != "package a\n\nfunc Mine() {}\n" {
		t.Errorf("the user's buffer changed: %q", text)
	}
	// Nothing to revert in a run that changed nothing.
	_, err = h.revert(map[string]any{"runId": run.SessionID + "-9"})
	if r := wantCode(t, err, lspserver.CodeRequestFailed); r != "session.not_found" {
		t.Errorf("run 9: reason %q", r)
	}
}

// A11, A16: with a state directory, a session outlives the connection: a
// new server (the editor restarted) continues it by ID, and the model sees
// the earlier conversation.
func TestServer_A11_SessionOutlivesConnection(t *testing.T) {
	state := t.TempDir()
	script := strings.Join([]string{`{"content":"first answer"}`, `{"content":"second answer"}`}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) { o.StateDir = state }})
	first := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "first"})
	if err := h.c.Shutdown(h.ctx(), wait); err != nil {
		t.Fatal(err)
	}
	opts := &lspserver.Options{StateDir: state, NewModel: newModelFunc(h.llm.URL), LoadPolicy: questionsWithin(5 * time.Second)}
	c := lsptest.New(t, &lsptest.Options{Server: opts})
	if _, err := c.Initialize(h.ctx(), lsptest.InitializeParams(h.root, nil)); err != nil {
		t.Fatal(err)
	}
	second, err := c.ExecuteCommand(h.ctx(), command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "second", "sessionId": first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if second.RunID != first.SessionID+"-2" {
		t.Errorf("run %q", second.RunID)
	}
	got := h.modelRequests()[1].texts()
	if !strings.Contains(strings.Join(got, "\n"), "assistant: first answer") {
		t.Errorf("the continued run did not get the history:\n%s", strings.Join(got, "\n"))
	}
}

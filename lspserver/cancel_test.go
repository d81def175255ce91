package lspserver_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// slowScript makes the model take 20 s to answer its first turn: a run
// that ends promptly was cancelled.
const slowScript = `{"delay_ms":20000,"content":"too late"}`

// prompt bounds how fast a cancellation must end a run.
const prompt = 3 * time.Second

// sessionToken waits for the run's window/workDoneProgress/create and
// returns its token, "agentls-<sessionId>".
func (h *harness) sessionToken() string {
	h.t.Helper()
	m, err := h.c.WaitFor(wait, "window/workDoneProgress/create", nil)
	if err != nil {
		h.t.Fatal(err)
	}
	var p struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || !strings.HasPrefix(p.Token, "agentls-") {
		h.t.Fatalf("progress token %s: %v", m.Params, err)
	}
	return p.Token
}

// waitModelAsked waits until the model has the run's first request, so
// the run is surely in flight.
func (h *harness) waitModelAsked() {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for len(h.llm.Requests()) == 0 {
		if time.Now().After(deadline) {
			h.t.Fatal("the model was never asked")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// E8: agentls.cancel with the session ID ends the run promptly with
// status cancelled.
func TestServer_E8_CancelCommand(t *testing.T) {
	h := start(t, setup{script: slowScript, files: map[string]string{"a.go": "package a\n"}, caps: fullCaps(true)})
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandPlan, "arguments": []any{map[string]any{"uri": h.uri("a.go"), "instruction": "plan"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(h.sessionToken(), "agentls-")
	h.waitModelAsked()
	start := time.Now()
	var cres struct {
		Cancelled []string `json:"cancelled"`
	}
	err = h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandCancel, "arguments": []any{map[string]any{"sessionId": id}},
	}, &cres)
	if err != nil {
		t.Fatal(err)
	}
	if len(cres.Cancelled) != 1 || cres.Cancelled[0] != id {
		t.Errorf("cancel result %+v, want [%s]", cres, id)
	}
	raw, err := p.Wait(prompt)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "cancelled" || res.SessionID != id {
		t.Errorf("result %+v, want status cancelled for %s", res, id)
	}
	if d := time.Since(start); d > prompt {
		t.Errorf("cancel took %v", d)
	}
	// The progress ends.
	if _, err := h.c.WaitNotification(time.Second, "$/progress", func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), `"end"`)
	}); err != nil {
		t.Error(err)
	}
	// Cancelling it again finds nothing.
	err = h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandCancel, "arguments": []any{map[string]any{"sessionId": id}},
	}, &cres)
	if err != nil || len(cres.Cancelled) != 0 {
		t.Errorf("second cancel: %+v, %v", cres, err)
	}
}

// E8: $/cancelRequest on the executeCommand answers it with
// RequestCancelled (-32800) promptly.
func TestServer_E8_CancelRequest(t *testing.T) {
	h := start(t, setup{script: slowScript, files: map[string]string{"a.go": "package a\n"}, caps: fullCaps(true)})
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandPlan, "arguments": []any{map[string]any{"uri": h.uri("a.go"), "instruction": "plan"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.waitModelAsked()
	start := time.Now()
	if err := h.c.CancelRequest(h.ctx(), p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = p.Wait(prompt)
	wantCode(t, err, lspserver.CodeRequestCancelled)
	if d := time.Since(start); d > prompt {
		t.Errorf("cancel took %v", d)
	}
}

// E8: window/workDoneProgress/cancel on the run's token cancels it.
func TestServer_E8_ProgressCancel(t *testing.T) {
	h := start(t, setup{script: slowScript, files: map[string]string{"a.go": "package a\n"}, caps: fullCaps(true)})
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandReview, "arguments": []any{map[string]any{"uri": h.uri("a.go"), "instruction": "review"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	token := h.sessionToken()
	h.waitModelAsked()
	start := time.Now()
	if err := h.c.Notify(h.ctx(), "window/workDoneProgress/cancel", map[string]any{"token": token}); err != nil {
		t.Fatal(err)
	}
	raw, err := p.Wait(prompt)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	_ = json.Unmarshal(raw, &res)
	if res.Status != "cancelled" {
		t.Errorf("status %q, want cancelled", res.Status)
	}
	if d := time.Since(start); d > prompt {
		t.Errorf("cancel took %v", d)
	}
}

// E8: a normal run reports $/progress begin, report(s) and end on the
// token the client created, in that order.
func TestServer_E8_ProgressSequence(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"tool_calls":[{"id":"l1","name":"list_dir","arguments":{"path":"."}}]}`,
		`{"content":"Plan: nothing."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"}, caps: fullCaps(true)})
	res := h.mustRun(lspserver.CommandPlan, map[string]any{"uri": h.uri("a.go"), "instruction": "plan"})
	creates := h.c.Received("window/workDoneProgress/create")
	if len(creates) != 1 {
		t.Fatalf("%d workDoneProgress/create", len(creates))
	}
	token := "agentls-" + res.SessionID
	if !strings.Contains(string(creates[0].Params), token) {
		t.Errorf("create %s, want token %s", creates[0].Params, token)
	}
	var kinds []string
	for _, m := range h.c.Received("$/progress") {
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind        string `json:"kind"`
				Title       string `json:"title"`
				Cancellable *bool  `json:"cancellable"`
			} `json:"value"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Token != token {
			t.Errorf("progress on token %q, want %q", p.Token, token)
		}
		if m.Seq < creates[0].Seq {
			t.Errorf("progress before create")
		}
		if p.Value.Kind == "begin" && (p.Value.Title == "" || p.Value.Cancellable == nil || !*p.Value.Cancellable) {
			t.Errorf("begin %s: want a title and cancellable", m.Params)
		}
		kinds = append(kinds, p.Value.Kind)
	}
	if len(kinds) < 3 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" {
		t.Fatalf("progress kinds %v, want begin, report…, end", kinds)
	}
	for _, k := range kinds[1 : len(kinds)-1] {
		if k != "report" {
			t.Errorf("progress kinds %v", kinds)
		}
	}
}

// E8: a client without work-done progress gets no $/progress.
func TestServer_E8_NoProgressWithoutCapability(t *testing.T) {
	script := `{"content":"Plan: nothing."}`
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"}, caps: clientCaps(true, false, false)})
	h.mustRun(lspserver.CommandPlan, map[string]any{"uri": h.uri("a.go"), "instruction": "plan"})
	if n := len(h.c.Received("$/progress")) + len(h.c.Received("window/workDoneProgress/create")); n != 0 {
		t.Errorf("%d progress messages to a client without the capability", n)
	}
}

// E7/E8: the client disconnects while the server waits on a
// showMessageRequest: Serve returns promptly (the run is stopped rather
// than left talking to the model), no goroutine is left (TestMain), and
// no file is touched.
func TestServer_E7_DisconnectMidQuestion(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"return 1 }","new_text":"return 10 }"}]}}]}`,
		// Were the run to go on after the disconnect, its next model turn
		// would take 8 s.
		`{"delay_ms":8000,"content":"done"}`,
	}, "\n")
	h := start(t, setup{
		script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(false, true, true),
		handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.NeverAnswer},
	})
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": lspserver.CommandExecute, "arguments": []any{execArg(h)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.WaitFor(wait, "window/showMessageRequest", nil); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(h.path("a.go"))
	start := time.Now()
	if err := h.c.Close(); err != nil {
		skipBug(t, "after the client disconnects, Serve waits for the run to finish talking to the model: "+err.Error())
		t.Fatal(err)
	}
	if d := time.Since(start); d > prompt {
		skipBug(t, "after the client disconnects, the run goes on (next model turn) and Serve returns only after "+d.String())
		t.Errorf("Serve returned %v after the disconnect", d)
	}
	if _, err := p.Result(); err == nil {
		t.Error("the command succeeded on a closed connection")
	}
	if got := h.read("a.go"); got != twoFuncs {
		t.Errorf("a.go changed: %q", got)
	}
	if info2, _ := os.Stat(h.path("a.go")); info != nil && info2 != nil && !info2.ModTime().Equal(info.ModTime()) {
		t.Error("a.go was rewritten")
	}
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit", n)
	}
}

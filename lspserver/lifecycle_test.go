package lspserver_test

import (
	"encoding/json"
	"slices"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// E2: initialize advertises the four commands, code actions, work-done
// progress and incremental sync; a second initialize fails.
func TestServer_E2_InitializeCapabilities(t *testing.T) {
	h := start(t, setup{noInit: true})
	raw, err := h.c.Initialize(h.ctx(), lsptest.InitializeParams(h.root, nil))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Capabilities struct {
			TextDocumentSync json.RawMessage `json:"textDocumentSync"`
			CodeAction       json.RawMessage `json:"codeActionProvider"`
			ExecuteCommand   struct {
				Commands         []string `json:"commands"`
				WorkDoneProgress bool     `json:"workDoneProgress"`
			} `json:"executeCommandProvider"`
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	caps := res.Capabilities
	want := []string{"agentls.plan", "agentls.review", "agentls.execute", "agentls.cancel"}
	got := slices.Clone(caps.ExecuteCommand.Commands)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("commands = %v, want %v", caps.ExecuteCommand.Commands, want)
	}
	if !caps.ExecuteCommand.WorkDoneProgress {
		t.Errorf("executeCommandProvider.workDoneProgress is not true: %s", raw)
	}
	switch string(caps.CodeAction) {
	case "", "null", "false":
		t.Errorf("no codeActionProvider: %s", raw)
	}
	// Incremental sync: either the number 2 or {"change": 2, …}.
	var kind int
	if json.Unmarshal(caps.TextDocumentSync, &kind) != nil {
		var opts struct {
			Change    int  `json:"change"`
			OpenClose bool `json:"openClose"`
		}
		if err := json.Unmarshal(caps.TextDocumentSync, &opts); err != nil {
			t.Fatalf("textDocumentSync %s: %v", caps.TextDocumentSync, err)
		}
		kind = opts.Change
		if !opts.OpenClose {
			t.Errorf("textDocumentSync.openClose is not true: %s", caps.TextDocumentSync)
		}
	}
	if kind != 2 {
		t.Errorf("textDocumentSync change kind = %d, want 2 (incremental): %s", kind, caps.TextDocumentSync)
	}
	if caps.PositionEncoding != "" && caps.PositionEncoding != "utf-16" {
		t.Errorf("positionEncoding = %q, want utf-16", caps.PositionEncoding)
	}
	if res.ServerInfo.Name != "agentls" {
		t.Errorf("serverInfo.name = %q", res.ServerInfo.Name)
	}

	// The code action offers the three commands for a range.
	h.open("a.go", 1, "package a\n")
	var actions []struct {
		Title   string `json:"title"`
		Command struct {
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	err = h.c.Call(h.ctx(), "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": h.uri("a.go")},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 7}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, a := range actions {
		cmds = append(cmds, a.Command.Command)
		if len(a.Command.Arguments) != 1 {
			t.Errorf("code action %q has %d arguments, want 1", a.Title, len(a.Command.Arguments))
		}
	}
	if !slices.Equal(cmds, []string{lspserver.CommandPlan, lspserver.CommandReview, lspserver.CommandExecute}) {
		t.Errorf("code action commands = %v", cmds)
	}

	// A second initialize is refused.
	err = h.c.Call(h.ctx(), "initialize", lsptest.InitializeParams(h.root, nil), nil)
	if err == nil {
		t.Fatal("second initialize succeeded")
	}
	if we := wireError(t, err); we.Code != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: code %d, want %d", we.Code, jsonrpc2.InvalidRequest)
	}
}

// E2: requests before initialize get ServerNotInitialized (-32002).
func TestServer_E2_RequestBeforeInitialize(t *testing.T) {
	h := start(t, setup{noInit: true})
	for _, method := range []string{"shutdown", "workspace/executeCommand", "textDocument/codeAction", "no/such/method"} {
		err := h.c.Call(h.ctx(), method, map[string]any{}, nil)
		wantCode(t, err, jsonrpc2.ServerNotInitialized)
	}
	// The session still starts properly afterwards.
	if _, err := h.c.Initialize(h.ctx(), lsptest.InitializeParams(h.root, nil)); err != nil {
		t.Fatal(err)
	}
}

// E2: an unknown method is MethodNotFound (-32601), and the server goes on.
func TestServer_E2_UnknownMethod(t *testing.T) {
	h := start(t, setup{})
	err := h.c.Call(h.ctx(), "textDocument/hover", map[string]any{}, nil)
	wantCode(t, err, jsonrpc2.MethodNotFound)
	err = h.c.Call(h.ctx(), "agentls/bogus", nil, nil)
	wantCode(t, err, jsonrpc2.MethodNotFound)
	// Unknown notifications are ignored, not answered.
	if err := h.c.Notify(h.ctx(), "agentls/bogusNotification", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Call(h.ctx(), "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown after unknown methods: %v", err)
	}
	for _, m := range h.c.Messages() {
		if m.Kind == lsptest.KindResponse && m.ID == "null" {
			t.Errorf("the server answered a notification: %+v", m)
		}
	}
}

// E2: after shutdown every request fails, and exit ends Serve cleanly.
func TestServer_E2_ShutdownThenExit(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.Call(h.ctx(), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err := h.run(lspserver.CommandPlan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"})
	if err == nil {
		t.Fatal("executeCommand after shutdown succeeded")
	}
	wireError(t, err)
	if err := h.c.Call(h.ctx(), "textDocument/codeAction", map[string]any{}, nil); err == nil {
		t.Fatal("codeAction after shutdown succeeded")
	}
	if err := h.c.Notify(h.ctx(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.c.WaitServe(wait); err != nil {
		t.Fatalf("Serve after exit: %v", err)
	}
}

// E2: exit without shutdown also ends Serve.
func TestServer_E2_ExitEndsServe(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.Notify(h.ctx(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.c.WaitServe(wait); err != nil {
		t.Fatalf("Serve after exit: %v", err)
	}
}

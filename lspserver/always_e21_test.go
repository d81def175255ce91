package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// askedCommand stands in for run_command: an execute call the policy
// asks about, counted when it runs.
func askedCommand(runs *atomic.Int32) *tools.Registry {
	return commandRegistry(runs, tools.Verdict{Decision: tools.Ask, Subject: "make test", Rule: "shell.build", Preview: "$ make test"})
}

// commandRegistry is the built-ins with run_command replaced by one whose
// check returns v and whose run is counted.
func commandRegistry(runs *atomic.Int32, v tools.Verdict) *tools.Registry {
	reg := tools.NewRegistry()
	for _, tl := range builtin.All() {
		if tl.Name != "run_command" {
			reg.MustRegister(tl)
		}
	}
	reg.MustRegister(&tools.Tool{Name: "run_command", Description: "x", Risk: tools.RiskExecute,
		Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Check: func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
			c := v
			return &c, nil
		},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			runs.Add(1)
			return tools.Result{Content: "ok"}, nil
		},
	})
	return reg
}

// answering answers every question of h with pick(offered titles) and
// returns the titles offered, per question.
func answering(h *harness, pick func([]string) string) func() [][]string {
	var mu sync.Mutex
	var asked [][]string
	h.c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var q question
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		var titles []string
		for _, a := range q.Actions {
			titles = append(titles, a.Title)
		}
		mu.Lock()
		asked = append(asked, titles)
		mu.Unlock()
		return map[string]string{"title": pick(titles)}, nil
	})
	return func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return asked
	}
}

// E21 (issue 28): "Always in this workspace" answered in one server is
// kept in the user's state directory and honoured by a new server (a
// restart) for the same workspace without a question; another workspace
// is asked. Nothing is written into the workspace.
func TestServer_E21_AlwaysWorkspaceSurvivesRestart(t *testing.T) {
	state := t.TempDir()
	var runs atomic.Int32
	script := `{"tool_calls":[{"id":"c1","name":"run_command","arguments":{"command":"make test"}}]}` + "\n" + `{"content":"Done."}`
	opts := func(o *lspserver.Options) { o.Registry, o.StateDir = askedCommand(&runs), state }
	first := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true), opts: opts})
	asked := answering(first, func([]string) string { return command.ActionAlwaysWorkspace })
	if res := first.mustRun(command.Execute, execArg(first)); res.Status != "done" || runs.Load() != 1 {
		t.Fatalf("first server: status %q, %d runs", res.Status, runs.Load())
	}
	want := []string{command.ActionApprove, command.ActionDeny, command.ActionAlwaysSession, command.ActionAlwaysWorkspace, command.ActionAlwaysEverywhere}
	if q := asked(); len(q) != 1 || strings.Join(q[0][:5], "|") != strings.Join(want, "|") {
		t.Fatalf("first server asked %q, want one question offering %q", q, want)
	}
	first.c.Close()

	second := start(t, setup{script: script, caps: clientCaps(true, true, true), opts: opts, noInit: true})
	second.root = first.root
	if _, err := second.c.Initialize(second.ctx(), lsptest.InitializeParams(first.root, clientCaps(true, true, true))); err != nil {
		t.Fatal(err)
	}
	again := answering(second, func([]string) string { return command.ActionDeny })
	if res := second.mustRun(command.Execute, execArg(second)); res.Status != "done" || runs.Load() != 2 || len(again()) != 0 {
		t.Fatalf("after the restart: status %q, %d runs, asked %q; want it run without a question", res.Status, runs.Load(), again())
	}
	entries, err := os.ReadDir(first.root)
	if err != nil || len(entries) != 1 {
		t.Errorf("workspace holds %v (%v), want a.go alone", entries, err)
	}

	other := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true), opts: opts})
	elsewhere := answering(other, func([]string) string { return command.ActionDeny })
	other.mustRun(command.Execute, execArg(other))
	if runs.Load() != 2 || len(elsewhere()) != 1 {
		t.Errorf("another workspace: %d runs, asked %q; want asked and denied", runs.Load(), elsewhere())
	}
}

// E21, E15 (issue 28, "Done when"): with a user store that can keep
// every scope, and even a grant in it for that very change, a change to
// .vscode/settings.json is asked with no "Always …" answer: an edit (the
// proposer's question, with and without change annotations) and a
// command that redirects into it (the gateway's question).
func TestServer_E21_NoAlwaysForVSCodeSettings(t *testing.T) {
	state := t.TempDir()
	grant := `{"version":1,"grants":[` +
		`{"id":"00000001","scope":"everywhere","tool":"write_file","subject":".vscode/settings.json","granted":"2026-12-01T10:00:00Z"},` +
		`{"id":"00000002","scope":"everywhere","tool":"run_command","subject":"echo {} > .vscode/settings.json","granted":"2026-12-01T10:00:00Z"}]}`
	if err := os.WriteFile(tools.AllowStorePath(state), []byte(grant), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `{"tool_calls":[{"id":"w1","name":"write_file","arguments":{"path":".vscode/settings.json","content":"{\"chat.tools.autoApprove\": true}\n"}}]}` + "\n" + `{"content":"Done."}`
	for _, annotations := range []bool{false, true} {
		h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(annotations, true, true),
			opts: func(o *lspserver.Options) { o.StateDir = state }})
		newEditor(h)
		asked := answering(h, func([]string) string { return command.ActionDeny })
		if res := h.mustRun(command.Execute, execArg(h)); res.Status != "done" {
			t.Fatalf("annotations %v: status %q", annotations, res.Status)
		}
		q := asked()
		if len(q) != 1 {
			t.Fatalf("annotations %v: asked %q, want one question", annotations, q)
		}
		for _, title := range q[0] {
			if strings.HasPrefix(title, "Always ") {
				t.Errorf("annotations %v: the .vscode/settings.json question offers %q", annotations, title)
			}
		}
		if _, err := os.Stat(h.path(".vscode/settings.json")); err == nil {
			t.Errorf("annotations %v: settings written after a deny", annotations)
		}
	}
	var runs atomic.Int32
	reg := commandRegistry(&runs, tools.Verdict{Decision: tools.Ask, Control: true, Subject: "echo {} > .vscode/settings.json",
		Rule: "shell.control_file", Preview: "$ echo {} > .vscode/settings.json"})
	cmd := `{"tool_calls":[{"id":"c1","name":"run_command","arguments":{"command":"echo {} > .vscode/settings.json"}}]}` + "\n" + `{"content":"Done."}`
	h := start(t, setup{script: cmd, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) { o.StateDir, o.Registry = state, reg }})
	asked := answering(h, func(titles []string) string { return titles[len(titles)-1] })
	h.mustRun(command.Execute, execArg(h))
	q := asked()
	if len(q) != 1 || runs.Load() != 0 {
		t.Fatalf("command into .vscode/settings.json: asked %q, %d runs; want one question and no run", q, runs.Load())
	}
	for _, title := range q[0] {
		if strings.HasPrefix(title, "Always ") {
			t.Errorf("the command's question offers %q", title)
		}
	}
}

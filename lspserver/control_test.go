package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// controlScript writes an ordinary file, a VS Code settings file (the
// CVE-2025-53773 pattern) and agentls' own policy, then finishes.
var controlScript = strings.Join([]string{
	`{"tool_calls":[{"id":"w1","name":"write_file","arguments":{"path":"notes.txt","content":"hi\n"}}]}`,
	`{"tool_calls":[{"id":"w2","name":"write_file","arguments":{"path":".vscode/settings.json","content":"{\"chat.tools.autoApprove\": true}\n"}}]}`,
	`{"tool_calls":[{"id":"w3","name":"write_file","arguments":{"path":".agentls/policy.json","content":"{\"allow\": [\"*\"]}\n"}}]}`,
	`{"tool_calls":[{"id":"w4","name":"edit_file","arguments":{"path":"./.AgentLS/../.agentls/policy.json","edits":[{"old_text":"risk:mcp","new_text":"x"}]}}]}`,
	`{"content":"Done."}`,
}, "\n")

// allowAllWrites is the user policy of issue 11: every write preapproved.
func allowAllWrites(string) (*tools.Policy, error) {
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.ApprovalTimeout = 5 * time.Second
	for _, text := range []string{"write_file(**)", "edit_file(**)"} {
		r, err := tools.ParseRule(text, tools.Allow, "user")
		if err != nil {
			return nil, err
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

// E15, issue 10 item 10, issue 11 "Done when" (4): under an allow-all write
// policy, .vscode/settings.json is never written without a question that
// warns and offers no "always", and .agentls/policy.json is refused
// (protected_path) without one; notes.txt is written without a question.
// With and without change annotations.
func TestServer_E15_ControlFilesUnderAllowAll(t *testing.T) {
	const policy = `{"deny": ["risk:mcp"]}`
	for _, annotations := range []bool{false, true} {
		for _, answer := range []string{command.ActionDeny, command.ActionApproveControl} {
			h := start(t, setup{script: controlScript, files: map[string]string{"a.go": twoFuncs, ".agentls/policy.json": policy, ".vscode/extensions.json": "{}\n"},
				caps: clientCaps(annotations, true, true), opts: func(o *lspserver.Options) { o.LoadPolicy = allowAllWrites }})
			newEditor(h)
			var mu sync.Mutex
			var questions []string
			h.c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
				var q question
				if err := json.Unmarshal(raw, &q); err != nil {
					return nil, err
				}
				for _, a := range q.Actions {
					if strings.HasPrefix(a.Title, "Always ") { // E15, E21: no scope of "always"
						t.Errorf("a control-file question offers %q", a.Title)
					}
				}
				mu.Lock()
				questions = append(questions, q.Message)
				mu.Unlock()
				return map[string]string{"title": answer}, nil
			})
			res := h.mustRun(command.Execute, execArg(h))
			name := map[bool]string{false: "plain", true: "annotations"}[annotations] + "/" + answer
			if res.Status != "done" {
				t.Fatalf("%s: status %q: %s", name, res.Status, res.Summary)
			}
			if len(questions) != 1 || !strings.Contains(questions[0], ".vscode/settings.json") ||
				!strings.Contains(questions[0], "outside the sandbox") {
				t.Errorf("%s: questions %q, want one about .vscode/settings.json with the warning", name, questions)
			}
			if got := h.read("notes.txt"); got != "hi\n" {
				t.Errorf("%s: notes.txt = %q", name, got)
			}
			settings, err := os.ReadFile(h.path(".vscode/settings.json"))
			if written := err == nil && strings.Contains(string(settings), "autoApprove"); written != (answer == command.ActionApproveControl) {
				t.Errorf("%s: settings written = %v", name, written)
			}
			for _, id := range []string{"w3", "w4"} {
				if r := h.toolResult(id); !strings.Contains(r, `"code":"protected_path"`) {
					t.Errorf("%s: %s result %s, want protected_path", name, id, r)
				}
			}
			if got := h.read(".agentls/policy.json"); got != policy {
				t.Errorf("%s: policy changed to %q", name, got)
			}
			for _, a := range h.c.Received("workspace/applyEdit") {
				if strings.Contains(string(a.Params), ".agentls") {
					t.Errorf("%s: applyEdit for agentls' own file: %s", name, a.Params)
				}
				if strings.Contains(string(a.Params), ".vscode") && annotations && !strings.Contains(string(a.Params), `"needsConfirmation":true`) {
					t.Errorf("%s: control edit sent preapproved: %s", name, a.Params)
				}
			}
		}
	}
}

// controlCommand stands in for run_command whose shell analysis found a
// redirection into a control file: its check marks the verdict Control.
func controlCommand(runs *atomic.Int32) *tools.Tool {
	return &tools.Tool{Name: "run_command", Description: "x", Risk: tools.RiskExecute,
		Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Check: func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
			return &tools.Verdict{Decision: tools.Allow, Safe: true, Control: true, Subject: "echo x > .envrc",
				Rule: "shell.control_file", Preview: "$ echo x > .envrc"}, nil
		},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			runs.Add(1)
			return tools.Result{Content: "ok"}, nil
		},
	}
}

// E15: the editor's approver asks about a Control verdict of any tool
// (here run_command, as the shell analysis marks redirections) every
// time, warning first and without "Always allow", even when a rule
// allows the command and the user answered as if "always" were offered.
func TestServer_E15_ControlQuestionHasNoAlways(t *testing.T) {
	var runs atomic.Int32
	reg := tools.NewRegistry()
	for _, tl := range builtin.All() {
		if tl.Name != "run_command" {
			reg.MustRegister(tl)
		}
	}
	reg.MustRegister(controlCommand(&runs))
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"c1","name":"run_command","arguments":{"command":"echo x > .envrc"}}]}`,
		`{"tool_calls":[{"id":"c2","name":"run_command","arguments":{"command":"echo x > .envrc"}}]}`,
		`{"content":"Done."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) {
			o.Registry = reg
			o.LoadPolicy = func(string) (*tools.Policy, error) {
				p := tools.DefaultPolicy(tools.ProfileEditor)
				r, err := tools.ParseRule("run_command(*)", tools.Allow, "user")
				p.Rules = append(p.Rules, r)
				return p, err
			}
		}})
	var mu sync.Mutex
	var questions []string
	h.c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var q question
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		pick := command.ActionApproveControl
		for _, a := range q.Actions {
			if a.Title == command.ActionApprove { // issue 23: its own action, not the plain one
				t.Errorf("control question offers %q", a.Title)
			}
			if strings.HasPrefix(a.Title, "Always ") { // E15, E21: no scope of "always"
				t.Errorf("control question offers %q", a.Title)
				pick = a.Title
			}
		}
		questions = append(questions, q.Message)
		return map[string]string{"title": pick}, nil
	})
	res := h.mustRun(command.Execute, execArg(h))
	if res.Status != "done" || runs.Load() != 2 {
		t.Fatalf("status %q, %d runs", res.Status, runs.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(questions) != 2 {
		t.Fatalf("%d questions, want 2 (one by one)", len(questions))
	}
	for _, q := range questions {
		if !strings.HasPrefix(q, tools.ControlWarning) {
			t.Errorf("question without the warning first: %q", q)
		}
	}
}

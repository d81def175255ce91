package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/tools"
)

// allowAllWrites is the user policy of issue 11: every write preapproved.
func allowAllWrites(t *testing.T, profile string) *tools.Policy {
	t.Helper()
	p := tools.DefaultPolicy(profile)
	p.Rules = []tools.Rule{mustRule(t, "write_file(**)", tools.Allow, "user"), mustRule(t, "edit_file(**)", tools.Allow, "user")}
	return p
}

// recordingApprover gives one answer and records every request.
type recordingApprover struct {
	answer tools.Answer
	mu     sync.Mutex // guards reqs
	reqs   []tools.ApprovalRequest
}

func (a *recordingApprover) Approve(_ context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, *req)
	return tools.ApprovalResponse{Answer: a.answer}, nil
}

// TestGateway_E15_OwnControlFilesRefused: under an allow-all write policy,
// agentls' own files are refused with protected_path in every spelling,
// and nothing reaches the proposer (issue 10 item 10, issue 11).
func TestGateway_E15_OwnControlFilesRefused(t *testing.T) {
	h := newHarness(t)
	h.write(t, ".agentls/policy.json", `{"deny": ["risk:mcp"]}`)
	h.symlink(t, "cfg", ".agentls")
	h.symlink(t, "pol.json", ".agentls/policy.json")
	opts := &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: allowAllWrites(t, tools.ProfileEditor)}
	for _, p := range []string{
		".agentls/policy.json", "./.agentls/policy.json", "src/../.agentls/policy.json", ".agentls//policy.json",
		h.root + "/.agentls/policy.json", "file://" + h.root + "/.agentls/policy.json", ".AgentLS/policy.json",
		".agentls/hooks.json", ".agentls", "cfg/policy.json", "pol.json", "src/.agentls/mcp.json",
	} {
		res := h.callWith(t, opts, "write_file", map[string]string{"path": p, "content": `{"allow": ["*"]}`})
		wantErr(t, res, tools.CodeProtectedPath, "path")
	}
	res := h.callWith(t, opts, "edit_file", editArgsJSON("cfg/policy.json", edit{"risk:mcp", "x"}))
	wantErr(t, res, tools.CodeProtectedPath, "path")
	if n := len(h.edits.changes); n != 0 {
		t.Errorf("%d changes proposed to agentls' own files", n)
	}
	if b, _ := os.ReadFile(filepath.Join(h.root, ".agentls/policy.json")); string(b) != `{"deny": ["risk:mcp"]}` {
		t.Errorf("policy changed: %s", b)
	}
}

// TestGateway_E15_ControlFilesAlwaysAsked: under an allow-all write
// policy, an editor/VCS control file is proposed as not preapproved and
// marked Control with the warning, so the editor asks; an ordinary file
// is preapproved.
func TestGateway_E15_ControlFilesAlwaysAsked(t *testing.T) {
	h := newHarness(t)
	h.write(t, ".vscode/settings.json", "{}\n")
	h.symlink(t, "editor", ".vscode")
	opts := &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: allowAllWrites(t, tools.ProfileEditor)}
	wantOK(t, h.callWith(t, opts, "write_file", map[string]string{"path": "notes.txt", "content": "hi\n"}))
	for _, p := range []string{".vscode/settings.json", "editor/tasks.json", ".VSCode/launch.json", ".envrc", "sub/.envrc",
		".nvim.lua", ".exrc", ".husky/pre-commit", ".idea/workspace.xml", ".zed/settings.json", ".helix/config.toml",
		".gitattributes", ".gitmodules"} {
		wantOK(t, h.callWith(t, opts, "write_file", map[string]string{"path": p, "content": `{"chat.tools.autoApprove": true}`}))
	}
	wantOK(t, h.callWith(t, opts, "edit_file", editArgsJSON(".vscode/settings.json", edit{"{}", `{"a": 1}`})))
	if len(h.edits.changes) != 15 {
		t.Fatalf("%d changes, want 15", len(h.edits.changes))
	}
	for i, ch := range h.edits.changes {
		ordinary := i == 0
		if ch.Preapproved != ordinary || ch.Control == ordinary || (ch.Warning == "") == !ordinary {
			t.Errorf("%s: preapproved %v, control %v, warning %q", ch.Path, ch.Preapproved, ch.Control, ch.Warning)
		}
	}
	// .git stays refused outright.
	wantErr(t, h.callWith(t, opts, "write_file", map[string]string{"path": ".git/hooks/pre-commit", "content": "id"}), tools.CodeProtectedPath, "path") // issue 22 item 10
	// vet shows the ask and the control mark.
	v := newGateway(h.reg, h.env(), opts).Vet(t.Context(), "write_file", `{"path":".vscode/settings.json","content":"x"}`)
	if v.Decision != tools.Ask || !v.Control {
		t.Errorf("vet = %+v", v)
	}
}

// TestDiskProposer_E15_ControlFilesAskedOneByOne: without an editor (agentls
// call), a control file is asked about every time, with the warning, even
// under allow-all and after an "always" answer; nobody to ask or a deny
// leaves it unwritten. notes.txt is written without a question.
func TestDiskProposer_E15_ControlFilesAskedOneByOne(t *testing.T) {
	root := t.TempDir()
	reg := tools.NewRegistry()
	reg.MustRegister(All()...)
	env := &tools.Env{Root: root, Workspace: tools.DiskWorkspace(root), Edits: &tools.DiskProposer{Root: root}}
	call := func(ap tools.Approver, path, content string) tools.Result {
		t.Helper()
		opts := &tools.GatewayOptions{Allowed: []string{"write_file"}, Policy: allowAllWrites(t, tools.ProfileHeadless), Allowances: session}
		if ap != nil {
			opts.Approver = ap
		}
		res, err := newGateway(reg, env, opts).Call(t.Context(), "write_file", `{"path":"`+path+`","content":"`+content+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	wantOK(t, call(nil, "notes.txt", "hi"))
	wantErr(t, call(nil, ".vscode/settings.json", "x"), tools.CodeApprovalRequired, "")
	wantErr(t, call(&recordingApprover{answer: tools.AnswerDeny}, ".vscode/settings.json", "x"), tools.CodeApprovalDenied, "")
	if _, err := os.Stat(filepath.Join(root, ".vscode/settings.json")); err == nil {
		t.Fatal("control file written without approval")
	}
	ap := &recordingApprover{answer: tools.AnswerAlways}
	wantOK(t, call(ap, ".vscode/settings.json", "one"))
	wantOK(t, call(ap, ".vscode/settings.json", "two"))
	if len(ap.reqs) != 2 {
		t.Fatalf("asked %d times, want 2 (one by one, never always)", len(ap.reqs))
	}
	for _, r := range ap.reqs {
		if !r.Control || !strings.Contains(r.Warning, "outside the sandbox") {
			t.Errorf("request without the control warning: %+v", r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".vscode/settings.json")); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	wantErr(t, call(&recordingApprover{answer: tools.AnswerApprove}, ".agentls/policy.json", "x"), tools.CodeProtectedPath, "path")
	if out, _ := (&tools.DiskProposer{Root: root}).Propose(t.Context(), &tools.FileChange{Path: ".agentls/x", New: []byte("x"), Create: true, Preapproved: true}); out.Applied {
		t.Error("DiskProposer wrote agentls' own file")
	}
}

var session = tools.NewAllowances()

// TestGateway_E15_ControlVerdictIsGeneric: any tool whose check marks its
// verdict Control (run_command does for redirections) is asked under an
// allow-all policy, with the warning, and an "always" is never remembered.
func TestGateway_E15_ControlVerdictIsGeneric(t *testing.T) {
	reg := tools.NewRegistry()
	tool := &tools.Tool{Name: "exec_thing", Description: "x", Risk: tools.RiskExecute,
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"cmd":{"type":"string"}}}`),
		Check: func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
			return &tools.Verdict{Decision: tools.Allow, Safe: true, Control: true, Subject: "echo x > .envrc", Rule: "shell.control_file"}, nil
		},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: "ran"}, nil
		},
	}
	reg.MustRegister(tool)
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.Rules = []tools.Rule{mustRule(t, "*", tools.Allow, "user")}
	ap := &recordingApprover{answer: tools.AnswerAlways}
	s := tools.NewAllowances()
	r := newGateway(reg, &tools.Env{}, &tools.GatewayOptions{Allowed: []string{"exec_thing"}, Policy: p, Approver: ap, Allowances: s})
	for range 2 {
		res, err := r.Call(t.Context(), "exec_thing", `{"cmd":"x"}`)
		if err != nil || res.Content != "ran" {
			t.Fatalf("%+v %v", res, err)
		}
	}
	if len(ap.reqs) != 2 || !ap.reqs[1].Control || ap.reqs[1].Warning != tools.ControlWarning {
		t.Errorf("requests %+v", ap.reqs)
	}
	if v := r.Vet(t.Context(), "exec_thing", `{}`); v.Decision != tools.Ask || !v.Control {
		t.Errorf("vet = %+v", v)
	}
	// The same subject without the control mark, asked under the
	// defaults: were the "always" remembered, it would run unasked.
	plain := *tool
	plain.Check = func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
		return &tools.Verdict{Decision: tools.Ask, Subject: "echo x > .envrc", Rule: "shell.ask"}, nil
	}
	plainReg := tools.NewRegistry()
	plainReg.MustRegister(&plain)
	plainGateway := func(ap tools.Approver) *tools.Gateway {
		return newGateway(plainReg, &tools.Env{}, &tools.GatewayOptions{Allowed: []string{"exec_thing"}, Approver: ap, Allowances: s})
	}
	if res, _ := plainGateway(nil).Call(t.Context(), "exec_thing", `{}`); !res.IsError {
		t.Error("the session remembered an always for a control file")
	}
	// Even an "always" remembered for the same subject (say, before the
	// analyser knew the file) is not used.
	if res, _ := plainGateway(&recordingApprover{answer: tools.AnswerAlways}).Call(t.Context(), "exec_thing", `{}`); res.IsError {
		t.Fatalf("always for the plain call: %+v", res)
	}
	if res, _ := plainGateway(nil).Call(t.Context(), "exec_thing", `{}`); res.IsError {
		t.Fatalf("the always was not remembered: %+v", res)
	}
	nobody := newGateway(reg, &tools.Env{}, &tools.GatewayOptions{Allowed: []string{"exec_thing"}, Policy: p, Allowances: s})
	res, _ := nobody.Call(t.Context(), "exec_thing", `{}`)
	wantErr(t, res, tools.CodeApprovalRequired, "")
}

// TestPropose_E15_NeverPreapproved: whatever the verdict said (a symlink
// swapped after the check), a change whose resolved path is a control
// file reaches the proposer marked Control and not preapproved.
func TestPropose_E15_NeverPreapproved(t *testing.T) {
	edits := &fakeProposer{outcome: &tools.EditOutcome{Applied: true}}
	env := &tools.Env{Edits: edits, Call: tools.Call{Preapproved: true}}
	if _, err := propose(t.Context(), env, &tools.FileChange{Path: ".envrc", New: []byte("x"), Create: true, Tool: "write_file"}); err != nil {
		t.Fatal(err)
	}
	if ch := edits.changes[0]; ch.Preapproved || !ch.Control || ch.Warning != tools.ControlWarning {
		t.Errorf("change %+v", ch)
	}
}

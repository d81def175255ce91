package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/sandbox/sqlguard"
	"github.com/agentls/agentls/tools"
)

// TestHumanConfirm_T15_T16_Timeout: the model's own question has the same
// bound as every other question, the policy's approval timeout, and no
// answer in time is a deny.
func TestHumanConfirm_T15_T16_Timeout(t *testing.T) {
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.ApprovalTimeout = 50 * time.Millisecond
	reg := tools.NewRegistry()
	reg.MustRegister(humanConfirmTool())
	ap := &fakeApprover{block: true}
	r := newGateway(reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"human_confirm"}, Approver: ap, Policy: p})
	done := make(chan tools.Result, 1)
	go func() {
		res, _ := r.Call(t.Context(), "human_confirm", `{"question":"Push now?"}`)
		done <- res
	}()
	select {
	case res := <-done:
		if res.Content != `{"answer":"deny"}` {
			t.Errorf("unanswered question: %s, want a deny", res.Content)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("human_confirm is not bounded by the policy's approval timeout")
	}
}

// TestPolicy_T15_QuestionTimeout: approval_timeout_seconds is the bound,
// with the documented default of 300 seconds.
func TestPolicy_T15_QuestionTimeout(t *testing.T) {
	if got := tools.DefaultPolicy(tools.ProfileEditor).QuestionTimeout(); got != 300*time.Second {
		t.Errorf("default = %v, want 300s", got)
	}
	if got := (&tools.Policy{}).QuestionTimeout(); got != tools.DefaultApprovalTimeout {
		t.Errorf("unset = %v, want the default", got)
	}
	user := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(user, []byte(`{"approval_timeout_seconds": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := tools.LoadPolicy(tools.ProfileEditor, user, "")
	if err != nil || p.QuestionTimeout() != 7*time.Second {
		t.Errorf("from the file: %v, %v; want 7s", p.QuestionTimeout(), err)
	}
}

// TestEditFile_E6_T5_Preapproved: the gateway, not a context value, tells
// the proposer whether the policy allowed the change outright: an allow
// rule for the write marks it preapproved; the default ask does not.
func TestEditFile_E6_T5_Preapproved(t *testing.T) {
	allow := tools.DefaultPolicy(tools.ProfileEditor)
	r, err := tools.ParseRule("edit_file(src/**)", tools.Allow, "user")
	if err != nil {
		t.Fatal(err)
	}
	allow.Rules = append(allow.Rules, r)
	for _, c := range []struct {
		name   string
		policy *tools.Policy
		want   bool
	}{
		{"default asks", nil, false},
		{"allow rule", allow, true},
	} {
		h := newHarness(t)
		opts := &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: c.policy}
		wantOK(t, h.callWith(t, opts, "edit_file", editArgsJSON("src/main.go", edit{"hi", "yo"})))
		if got := h.edits.changes[0].Preapproved; got != c.want {
			t.Errorf("%s: Preapproved = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDiskProposer_E6: without an editor the gateway asks the Approver
// with the diff before the change is written; a deny, an unanswered
// question and nobody to ask leave the disk alone; a preapproved change
// is written without a question.
func TestDiskProposer_E6(t *testing.T) {
	allow := tools.DefaultPolicy(tools.ProfileHeadless)
	r, err := tools.ParseRule("write_file", tools.Allow, "user")
	if err != nil {
		t.Fatal(err)
	}
	allow.Rules = append(allow.Rules, r)
	short := tools.DefaultPolicy(tools.ProfileHeadless)
	short.ApprovalTimeout = 50 * time.Millisecond
	for _, c := range []struct {
		name    string
		ap      *fakeApprover
		policy  *tools.Policy
		code    tools.Code
		written bool
		asked   int32
	}{
		{"approve", &fakeApprover{answer: tools.AnswerApprove}, nil, "", true, 1},
		{"deny", &fakeApprover{answer: tools.AnswerDeny}, nil, tools.CodeApprovalDenied, false, 1},
		{"error", &fakeApprover{err: errors.New("gone")}, nil, tools.CodeApprovalDenied, false, 1},
		{"unanswered", &fakeApprover{block: true}, short, tools.CodeApprovalDenied, false, 1},
		{"nobody to ask", nil, nil, tools.CodeApprovalRequired, false, 0},
		{"preapproved", &fakeApprover{answer: tools.AnswerDeny}, allow, "", true, 0},
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		reg := tools.NewRegistry()
		reg.MustRegister(All()...)
		opts := &tools.GatewayOptions{Allowed: []string{"write_file"}, Policy: c.policy}
		if c.ap != nil {
			opts.Approver = c.ap
		}
		env := &tools.Env{Root: root, Workspace: tools.DiskWorkspace(root), Edits: &tools.DiskProposer{Root: root}}
		res, err := newGateway(reg, env, opts).Call(t.Context(), "write_file", `{"path":"a.txt","content":"new\n"}`)
		if err != nil {
			t.Fatal(err)
		}
		if res.Code != c.code {
			t.Errorf("%s: code %q, want %q (%s)", c.name, res.Code, c.code, res.Content)
		}
		got, _ := os.ReadFile(filepath.Join(root, "a.txt"))
		if written := string(got) == "new\n"; written != c.written {
			t.Errorf("%s: written = %v (%q)", c.name, written, got)
		}
		if c.ap != nil && c.ap.asked.Load() != c.asked {
			t.Errorf("%s: asked %d times, want %d", c.name, c.ap.asked.Load(), c.asked)
		}
	}
	// Called directly, a change nobody approved is refused.
	root := t.TempDir()
	out, err := (&tools.DiskProposer{Root: root}).Propose(t.Context(), &tools.FileChange{Path: "b.txt", New: []byte("x"), Create: true, Tool: "write_file"})
	if err != nil || out.Applied {
		t.Errorf("unapproved change: %+v, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("an unapproved change was written")
	}
}

// diffApprover approves and keeps the preview it was shown.
type diffApprover struct{ preview string }

func (a *diffApprover) Approve(_ context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	a.preview = req.Preview
	return tools.ApprovalResponse{Answer: tools.AnswerApprove}, nil
}

// TestDiskProposer_E6_ShowsTheDiff: the question about a disk change
// shows its unified diff.
func TestDiskProposer_E6_ShowsTheDiff(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.MustRegister(All()...)
	ap := &diffApprover{}
	env := &tools.Env{Root: root, Workspace: tools.DiskWorkspace(root), Edits: &tools.DiskProposer{Root: root}}
	r := newGateway(reg, env, &tools.GatewayOptions{Allowed: []string{"write_file"}, Approver: ap})
	if res, err := r.Call(t.Context(), "write_file", `{"path":"a.txt","content":"new\n"}`); err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	wantContains(t, ap.preview, "--- a/a.txt", "+++ b/a.txt", "-old", "+new")
}

// TestPolicyRefusal_T11: the one mapping from sandbox policy errors to the
// codes the model hears, by rule family; the rule stays out of the JSON.
func TestPolicyRefusal_T11(t *testing.T) {
	for _, c := range []struct {
		rule  string
		code  tools.Code
		field string
	}{
		{sandbox.RuleOutsideRoot, tools.CodePathOutsideRoot, "path"},
		{sandbox.RuleInvalidPath, tools.CodePathOutsideRoot, "path"},
		{sandbox.RuleHomePath, tools.CodePathOutsideRoot, "path"},
		{sandbox.RuleSymlinkDotDot, tools.CodePathOutsideRoot, "path"},
		{sqlguard.RuleNotReadOnly, tools.CodeSQLNotReadOnly, "path"},
		{netguard.RuleHostNotAllowed, tools.CodeHostNotAllowed, "path"},
		{netguard.RuleAddr, tools.CodeHostNotAllowed, "path"},
		{netguard.RuleMalformed, tools.CodeInvalidArgs, "path"},
		{netguard.RuleMethod, tools.CodeInvalidArgs, "method"},
		{netguard.RuleOff, tools.CodeHostNotAllowed, ""},
		{"other.rule", tools.CodePolicyDenied, "path"},
	} {
		e := tools.PolicyRefusal(&sandbox.PolicyError{Rule: c.rule, Subject: "s", Reason: "r"}, "path")
		if e.Code != c.code || e.Field != c.field || e.Rule != c.rule || e.Subject != "s" || e.Recovery == "" {
			t.Errorf("%s: %+v, want code %s field %q", c.rule, e, c.code, c.field)
		}
		var te *tools.ToolError
		if !errors.As(error(e), &te) || te != e {
			t.Errorf("%s: not errors.As-able", c.rule)
		}
		if res := e.Result(); !res.IsError || res.Code != c.code || strings.Contains(res.Content, c.rule) {
			t.Errorf("%s: result %+v", c.rule, res)
		}
	}
}

// silentApprover never answers.
type silentApprover struct{}

func (silentApprover) Approve(ctx context.Context, _ *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	<-ctx.Done()
	return tools.ApprovalResponse{}, ctx.Err()
}

// T15, issue 22 item 10: a question nobody answered within the approval
// timeout is a deny, and the model is told that nobody answered, not that
// the user declined.
func TestApproval_T15_UnansweredIsNotDeclined(t *testing.T) {
	h := newHarness(t)
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.ApprovalTimeout = 200 * time.Millisecond
	raw := `{"command":"echo hi > out.txt"}`
	res, err := newGateway(h.reg, h.env(), &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: p, Approver: silentApprover{}}).
		Call(t.Context(), "run_command", raw)
	if err != nil {
		t.Fatal(err)
	}
	te := wantErr(t, res, tools.CodeApprovalDenied, "")
	if !strings.Contains(te.Reason, "nobody answered") || strings.Contains(te.Reason, "did not approve") {
		t.Errorf("reason %q", te.Reason)
	}
}

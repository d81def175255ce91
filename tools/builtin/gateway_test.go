package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/tools"
)

// fakeApprover answers with a fixed answer, or blocks, or fails.
type fakeApprover struct {
	answer tools.Answer
	text   string
	err    error
	block  bool
	asked  atomic.Int32
}

func (f *fakeApprover) Approve(ctx context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	f.asked.Add(1)
	if f.block {
		<-ctx.Done()
		return tools.ApprovalResponse{}, ctx.Err()
	}
	return tools.ApprovalResponse{Answer: f.answer, Text: f.text}, f.err
}

// execTool is an execute-risk tool whose check asks, counting its runs.
func execTool(runs *atomic.Int32) *tools.Tool {
	return &tools.Tool{Name: "exec_thing", Description: "x", Risk: tools.RiskExecute,
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["cmd"],"properties":{"cmd":{"type":"string","minLength":1}}}`),
		Check: func(_ context.Context, _ *tools.Env, raw json.RawMessage) (*tools.Verdict, error) {
			var a struct{ Cmd string }
			_ = json.Unmarshal(raw, &a)
			if a.Cmd == "rm -rf ~" {
				return &tools.Verdict{Decision: tools.Deny, Code: tools.CodeCommandDenied, Rule: "shell.rm_home", Reason: "irreversible", Subject: a.Cmd}, nil
			}
			return &tools.Verdict{Decision: tools.Ask, Rule: "shell.unknown", Subject: strings.TrimSpace(a.Cmd), Preview: "$ " + a.Cmd}, nil
		},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			runs.Add(1)
			return tools.Result{Content: "ran"}, nil
		},
	}
}

func gateway(t *testing.T, ap tools.Approver, policy *tools.Policy, sess *tools.Allowances, audit *tools.AuditLog) (*tools.Gateway, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	reg := tools.NewRegistry()
	reg.MustRegister(execTool(&runs))
	return newGateway(reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"exec_thing"},
		Approver: ap, Policy: policy, Allowances: sess, Audit: audit}), &runs
}

func call(t *testing.T, r *tools.Gateway, args string) tools.Result {
	t.Helper()
	res, err := r.Call(t.Context(), "exec_thing", args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGateway_T7_T15_Approval: asks go to the approver; no approver, a
// deny, an error and a timeout all refuse without running; approve runs.
func TestGateway_T7_T15_Approval(t *testing.T) {
	short := tools.DefaultPolicy(tools.ProfileEditor)
	short.ApprovalTimeout = 50 * time.Millisecond
	cases := []struct {
		name string
		ap   tools.Approver
		code tools.Code
	}{
		{"no approver", nil, tools.CodeApprovalRequired},
		{"deny", &fakeApprover{answer: tools.AnswerDeny}, tools.CodeApprovalDenied},
		{"error", &fakeApprover{answer: tools.AnswerApprove, err: errors.New("client gone")}, tools.CodeApprovalDenied},
		{"unknown answer", &fakeApprover{answer: "sure"}, tools.CodeApprovalDenied},
		{"timeout", &fakeApprover{block: true}, tools.CodeApprovalDenied},
		{"approve", &fakeApprover{answer: tools.AnswerApprove}, ""},
	}
	for _, c := range cases {
		r, runs := gateway(t, c.ap, short, nil, nil)
		res := call(t, r, `{"cmd":"make"}`)
		if res.Code != c.code {
			t.Errorf("%s: code = %q, want %q (%s)", c.name, res.Code, c.code, res.Content)
		}
		if ran := runs.Load() == 1; ran != (c.code == "") {
			t.Errorf("%s: ran = %v", c.name, ran)
		}
	}
}

// TestGateway_T16_AlwaysRemembersNormalizedCall: "always" skips the
// question for the same normalized call in the session, and only that one.
func TestGateway_T16_AlwaysRemembersNormalizedCall(t *testing.T) {
	ap := &fakeApprover{answer: tools.AnswerAlways}
	sess := tools.NewAllowances()
	r, runs := gateway(t, ap, nil, sess, nil)
	call(t, r, `{"cmd":"make test"}`)
	call(t, r, `{"cmd":"  make test "}`) // same normalized subject
	if n := ap.asked.Load(); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
	call(t, r, `{"cmd":"make clean"}`)
	if n := ap.asked.Load(); n != 2 {
		t.Errorf("a different call was not asked: asked %d", n)
	}
	if runs.Load() != 3 {
		t.Errorf("runs = %d", runs.Load())
	}
}

// TestGateway_T5_DenyIsFinal: a tool's deny is not lifted by an allow
// rule nor by an approver, and the model hears the code without the rule.
func TestGateway_T5_DenyIsFinal(t *testing.T) {
	p := tools.DefaultPolicy(tools.ProfileEditor)
	r0, _ := tools.ParseRule("exec_thing(*)", tools.Allow, "user")
	p.Rules = append(p.Rules, r0)
	ap := &fakeApprover{answer: tools.AnswerApprove}
	r, runs := gateway(t, ap, p, nil, nil)
	res := call(t, r, `{"cmd":"rm -rf ~"}`)
	if res.Code != tools.CodeCommandDenied || runs.Load() != 0 || ap.asked.Load() != 0 {
		t.Errorf("res = %+v runs=%d asked=%d", res, runs.Load(), ap.asked.Load())
	}
	if strings.Contains(res.Content, "shell.rm_home") {
		t.Errorf("the inner rule leaked to the model: %s", res.Content)
	}
	if res := call(t, r, `{"cmd":"make"}`); res.IsError || ap.asked.Load() != 0 {
		t.Errorf("allow rule did not lift the ask: %+v", res)
	}
}

// TestGateway_T10_Audit: one record per call, with decision, rule, who
// approved, and a hash, never the raw arguments.
func TestGateway_T10_Audit(t *testing.T) {
	var buf bytes.Buffer
	r, _ := gateway(t, &fakeApprover{answer: tools.AnswerApprove}, nil, nil, tools.NewAuditLog(&buf))
	call(t, r, `{"cmd":"echo sk-secret-value"}`)
	call(t, r, `{"cmd":"rm -rf ~"}`)
	call(t, r, `not json`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("audit lines = %d:\n%s", len(lines), buf.String())
	}
	if strings.Contains(buf.String(), "sk-secret-value") {
		t.Error("raw arguments in the audit log")
	}
	var recs []tools.AuditRecord
	for _, l := range lines {
		var rec tools.AuditRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if recs[0].Decision != tools.Ask || recs[0].ApprovedBy != "user" || len(recs[0].ArgsSHA256) != 64 {
		t.Errorf("record 0 = %+v", recs[0])
	}
	if recs[1].Decision != tools.Deny || recs[1].Rule != "shell.rm_home" || recs[1].Code != tools.CodeCommandDenied {
		t.Errorf("record 1 = %+v", recs[1])
	}
	if recs[2].Code != tools.CodeInvalidArgs {
		t.Errorf("record 2 = %+v", recs[2])
	}
}

// TestGateway_T18_VetHasNoSideEffects: Vet decides without asking or
// running.
func TestGateway_T18_VetHasNoSideEffects(t *testing.T) {
	ap := &fakeApprover{answer: tools.AnswerApprove}
	r, runs := gateway(t, ap, nil, nil, nil)
	for args, want := range map[string]tools.Decision{`{"cmd":"make"}`: tools.Ask, `{"cmd":"rm -rf ~"}`: tools.Deny, `{}`: tools.Deny, `[`: tools.Deny} {
		if v := r.Vet(t.Context(), "exec_thing", args); v.Decision != want {
			t.Errorf("Vet(%s) = %+v, want %s", args, v, want)
		}
	}
	if v := r.Vet(t.Context(), "nope", `{}`); v.Code != tools.CodeUnknownTool {
		t.Errorf("unknown tool: %+v", v)
	}
	if runs.Load() != 0 || ap.asked.Load() != 0 {
		t.Errorf("vet ran %d and asked %d", runs.Load(), ap.asked.Load())
	}
}

// TestHumanConfirm_T16: the model's question gets a structured answer.
func TestHumanConfirm_T16(t *testing.T) {
	for _, c := range []struct {
		ap   tools.Approver
		want string
	}{
		{&fakeApprover{answer: tools.AnswerApprove}, `{"answer":"approve","text":"git push"}`},
		{&fakeApprover{answer: tools.AnswerDeny}, `{"answer":"deny"}`},
		{&fakeApprover{answer: tools.AnswerModify, text: "git push --dry-run"}, `{"answer":"modify","text":"git push --dry-run"}`},
		{&fakeApprover{err: errors.New("gone")}, `{"answer":"deny"}`},
	} {
		reg := tools.NewRegistry()
		reg.MustRegister(humanConfirmTool())
		r := newGateway(reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"human_confirm"}, Approver: c.ap})
		res, err := r.Call(t.Context(), "human_confirm", `{"question":"Push now?","text":"git push"}`)
		if err != nil || res.Content != c.want {
			t.Errorf("answer = %s (%v), want %s", res.Content, err, c.want)
		}
	}
	reg := tools.NewRegistry()
	reg.MustRegister(humanConfirmTool())
	r := newGateway(reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"human_confirm"}})
	if res, _ := r.Call(t.Context(), "human_confirm", `{"question":"?"}`); res.Code != tools.CodeApprovalRequired {
		t.Errorf("no approver: %+v", res)
	}
}

// TestGateway_A15_LargeResultsSpillToWorkspace: a result over 30,000
// characters is stored under .agentls/results and the model gets a summary
// naming a workspace path that read_file can page through.
func TestGateway_A15_LargeResultsSpillToWorkspace(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("line of output\n", 5000)
	reg := tools.NewRegistry()
	reg.MustRegister(All()...)
	reg.MustRegister(&tools.Tool{Name: "big", Description: "x", Risk: tools.RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: big}, nil
		}})
	r := newGateway(reg, &tools.Env{Root: root, Workspace: tools.DiskWorkspace(root)}, &tools.GatewayOptions{Allowed: []string{"big", "read_file"}})
	res, err := r.Call(t.Context(), "big", `{}`)
	if err != nil || len(res.Content) > tools.MaxResultChars {
		t.Fatalf("result %d chars, err %v", len(res.Content), err)
	}
	i := strings.Index(res.Content, tools.ResultsDir+"/")
	if i < 0 {
		t.Fatalf("no workspace path in the summary:\n%s", res.Content[len(res.Content)-3000:])
	}
	rel := strings.Fields(res.Content[i:])[0]
	rel = strings.TrimRight(rel, ":,")
	page, err := r.Call(t.Context(), "read_file", `{"path":"`+rel+`","offset":4990,"limit":5}`)
	if err != nil || page.IsError || !strings.Contains(page.Content, "line of output") {
		t.Fatalf("read_file %s: %+v %v", rel, page, err)
	}
	if strings.Contains(res.Content, root) {
		t.Error("the summary leaks the host path")
	}
}

// TestGateway_T9_ResultIsCleaned: whatever a tool returns, the model gets
// valid UTF-8 without NUL bytes, bounded in size even where nothing can
// be spilled (no workspace): invalid bytes and NULs become U+FFFD, and a
// cut says how much was cut.
func TestGateway_T9_ResultIsCleaned(t *testing.T) {
	for _, c := range []struct {
		name, out, want string
		isError         bool
	}{
		{"nul and invalid bytes", "a\x00b\xffc\xe2\x82", "a\uFFFDb\uFFFDc\uFFFD", false},
		{"in an error result too", "exit code 1\n\x00\xfe", "exit code 1\n\uFFFD\uFFFD", true},
		{"clean text untouched", "héllo\tworld\n", "héllo\tworld\n", false},
	} {
		reg := tools.NewRegistry()
		reg.MustRegister(&tools.Tool{Name: "dirty", Description: "x", Risk: tools.RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
				return tools.Result{Content: c.out, IsError: c.isError, Code: map[bool]tools.Code{true: tools.CodeInternal}[c.isError]}, nil
			}})
		res, err := newGateway(reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"dirty"}}).Call(t.Context(), "dirty", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if res.Content != c.want || res.IsError != c.isError {
			t.Errorf("%s: content %q (error %v), want %q", c.name, res.Content, res.IsError, c.want)
		}
	}
	big := strings.Repeat("x", tools.MaxResultChars) + "\x00" + strings.Repeat("y", tools.MaxResultChars)
	reg := tools.NewRegistry()
	reg.MustRegister(&tools.Tool{Name: "big", Description: "x", Risk: tools.RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: big}, nil
		}})
	res, err := newGateway(reg, &tools.Env{}, &tools.GatewayOptions{Allowed: []string{"big"}}).Call(t.Context(), "big", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Content); n > tools.MaxResultChars+100 || !strings.Contains(res.Content, "bytes cut") || !utf8.ValidString(res.Content) {
		t.Errorf("uncut result: %d bytes, ends %q", n, res.Content[len(res.Content)-40:])
	}
}

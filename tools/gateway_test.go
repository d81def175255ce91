package tools

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
)

// fakeApprover answers with a fixed answer, or blocks, or fails.
type fakeApprover struct {
	answer Answer
	text   string
	err    error
	block  bool
	asked  atomic.Int32
}

func (f *fakeApprover) Approve(ctx context.Context, req *ApprovalRequest) (ApprovalResponse, error) {
	f.asked.Add(1)
	if f.block {
		<-ctx.Done()
		return ApprovalResponse{}, ctx.Err()
	}
	return ApprovalResponse{Answer: f.answer, Text: f.text}, f.err
}

// execTool is an execute-risk tool whose check asks, counting its runs.
func execTool(runs *atomic.Int32) *Tool {
	return &Tool{Name: "exec_thing", Description: "x", Risk: RiskExecute,
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["cmd"],"properties":{"cmd":{"type":"string","minLength":1}}}`),
		Check: func(_ context.Context, _ *Env, raw json.RawMessage) (*Verdict, error) {
			var a struct{ Cmd string }
			_ = json.Unmarshal(raw, &a)
			if a.Cmd == "rm -rf ~" {
				return &Verdict{Decision: Deny, Code: CodeCommandDenied, Rule: "shell.rm_home", Reason: "irreversible", Subject: a.Cmd}, nil
			}
			return &Verdict{Decision: Ask, Rule: "shell.unknown", Subject: strings.TrimSpace(a.Cmd), Preview: "$ " + a.Cmd}, nil
		},
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) {
			runs.Add(1)
			return Result{Content: "ran"}, nil
		},
	}
}

func gateway(t *testing.T, ap Approver, policy *Policy, sess *Allowances, audit *AuditLog) (*Gateway, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	reg := NewRegistry()
	reg.MustRegister(execTool(&runs))
	return NewRunner(reg, &Env{Root: t.TempDir()}, &RunnerOptions{Allowed: []string{"exec_thing"},
		Approver: ap, Policy: policy, Allowances: sess, Audit: audit}), &runs
}

func call(t *testing.T, r *Gateway, args string) Result {
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
	short := DefaultPolicy(ProfileEditor)
	short.ApprovalTimeout = 50 * time.Millisecond
	cases := []struct {
		name string
		ap   Approver
		code Code
	}{
		{"no approver", nil, CodeApprovalRequired},
		{"deny", &fakeApprover{answer: AnswerDeny}, CodeApprovalDenied},
		{"error", &fakeApprover{answer: AnswerApprove, err: errors.New("client gone")}, CodeApprovalDenied},
		{"unknown answer", &fakeApprover{answer: "sure"}, CodeApprovalDenied},
		{"timeout", &fakeApprover{block: true}, CodeApprovalDenied},
		{"approve", &fakeApprover{answer: AnswerApprove}, ""},
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
	ap := &fakeApprover{answer: AnswerAlways}
	sess := NewAllowances()
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
	p := DefaultPolicy(ProfileEditor)
	r0, _ := ParseRule("exec_thing(*)", Allow, "user")
	p.Rules = append(p.Rules, r0)
	ap := &fakeApprover{answer: AnswerApprove}
	r, runs := gateway(t, ap, p, nil, nil)
	res := call(t, r, `{"cmd":"rm -rf ~"}`)
	if res.Code != CodeCommandDenied || runs.Load() != 0 || ap.asked.Load() != 0 {
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
	r, _ := gateway(t, &fakeApprover{answer: AnswerApprove}, nil, nil, NewAuditLog(&buf))
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
	var recs []AuditRecord
	for _, l := range lines {
		var rec AuditRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if recs[0].Decision != Ask || recs[0].ApprovedBy != "user" || len(recs[0].ArgsSHA256) != 64 {
		t.Errorf("record 0 = %+v", recs[0])
	}
	if recs[1].Decision != Deny || recs[1].Rule != "shell.rm_home" || recs[1].Code != CodeCommandDenied {
		t.Errorf("record 1 = %+v", recs[1])
	}
	if recs[2].Code != CodeInvalidArgs {
		t.Errorf("record 2 = %+v", recs[2])
	}
}

// TestGateway_T18_VetHasNoSideEffects: Vet decides without asking or
// running.
func TestGateway_T18_VetHasNoSideEffects(t *testing.T) {
	ap := &fakeApprover{answer: AnswerApprove}
	r, runs := gateway(t, ap, nil, nil, nil)
	for args, want := range map[string]Decision{`{"cmd":"make"}`: Ask, `{"cmd":"rm -rf ~"}`: Deny, `{}`: Deny, `[`: Deny} {
		if v := r.Vet(t.Context(), "exec_thing", args); v.Decision != want {
			t.Errorf("Vet(%s) = %+v, want %s", args, v, want)
		}
	}
	if v := r.Vet(t.Context(), "nope", `{}`); v.Code != CodeUnknownTool {
		t.Errorf("unknown tool: %+v", v)
	}
	if runs.Load() != 0 || ap.asked.Load() != 0 {
		t.Errorf("vet ran %d and asked %d", runs.Load(), ap.asked.Load())
	}
}

// TestHumanConfirm_T16: the model's question gets a structured answer.
func TestHumanConfirm_T16(t *testing.T) {
	for _, c := range []struct {
		ap   Approver
		want string
	}{
		{&fakeApprover{answer: AnswerApprove}, `{"answer":"approve","text":"git push"}`},
		{&fakeApprover{answer: AnswerDeny}, `{"answer":"deny"}`},
		{&fakeApprover{answer: AnswerModify, text: "git push --dry-run"}, `{"answer":"modify","text":"git push --dry-run"}`},
		{&fakeApprover{err: errors.New("gone")}, `{"answer":"deny"}`},
	} {
		reg := NewRegistry()
		reg.MustRegister(humanConfirmTool())
		r := NewRunner(reg, &Env{Root: t.TempDir()}, &RunnerOptions{Allowed: []string{"human_confirm"}, Approver: c.ap})
		res, err := r.Call(t.Context(), "human_confirm", `{"question":"Push now?","text":"git push"}`)
		if err != nil || res.Content != c.want {
			t.Errorf("answer = %s (%v), want %s", res.Content, err, c.want)
		}
	}
	reg := NewRegistry()
	reg.MustRegister(humanConfirmTool())
	r := NewRunner(reg, &Env{Root: t.TempDir()}, &RunnerOptions{Allowed: []string{"human_confirm"}})
	if res, _ := r.Call(t.Context(), "human_confirm", `{"question":"?"}`); res.Code != CodeApprovalRequired {
		t.Errorf("no approver: %+v", res)
	}
}

// TestGateway_A15_LargeResultsSpillToWorkspace: a result over 30,000
// characters is stored under .agentls/results and the model gets a summary
// naming a workspace path that read_file can page through.
func TestGateway_A15_LargeResultsSpillToWorkspace(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("line of output\n", 5000)
	reg := NewRegistry()
	reg.MustRegister(Builtins()...)
	reg.MustRegister(&Tool{Name: "big", Description: "x", Risk: RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{Content: big}, nil }})
	r := NewRunner(reg, &Env{Root: root, Workspace: DiskWorkspace(root)}, &RunnerOptions{Allowed: []string{"big", "read_file"}})
	res, err := r.Call(t.Context(), "big", `{}`)
	if err != nil || len(res.Content) > MaxResultChars {
		t.Fatalf("result %d chars, err %v", len(res.Content), err)
	}
	i := strings.Index(res.Content, ResultsDir+"/")
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
		reg := NewRegistry()
		reg.MustRegister(&Tool{Name: "dirty", Description: "x", Risk: RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, *Env, json.RawMessage) (Result, error) {
				return Result{Content: c.out, IsError: c.isError, Code: map[bool]Code{true: CodeInternal}[c.isError]}, nil
			}})
		res, err := NewRunner(reg, &Env{Root: t.TempDir()}, &RunnerOptions{Allowed: []string{"dirty"}}).Call(t.Context(), "dirty", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if res.Content != c.want || res.IsError != c.isError {
			t.Errorf("%s: content %q (error %v), want %q", c.name, res.Content, res.IsError, c.want)
		}
	}
	big := strings.Repeat("x", MaxResultChars) + "\x00" + strings.Repeat("y", MaxResultChars)
	reg := NewRegistry()
	reg.MustRegister(&Tool{Name: "big", Description: "x", Risk: RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{Content: big}, nil }})
	res, err := NewRunner(reg, &Env{}, &RunnerOptions{Allowed: []string{"big"}}).Call(t.Context(), "big", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Content); n > MaxResultChars+100 || !strings.Contains(res.Content, "bytes cut") || !utf8.ValidString(res.Content) {
		t.Errorf("uncut result: %d bytes, ends %q", n, res.Content[len(res.Content)-40:])
	}
}

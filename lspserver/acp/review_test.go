package acp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/lspserver/acp"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/tools"
)

// TestACP_E20_ReviewFindingsLocated: in review mode a finding becomes a
// location (file and line) of its report_finding tool call, with its
// text as the call's content; a finding on a line that does not exist
// is refused to the model and located nowhere.
func TestACP_E20_ReviewFindingsLocated(t *testing.T) {
	f := start(t, setup{files: map[string]string{"a.go": "package a\n\nfunc F() {}\n"}, script: `
{"tool_calls":[{"name":"report_finding","arguments":{"path":"a.go","line":3,"severity":"warning","message":"F does nothing"}}]}
{"tool_calls":[{"name":"report_finding","arguments":{"path":"a.go","line":99,"severity":"error","message":"no such line"}}]}
{"content":"one finding"}
`})
	sid := f.newSession("review")
	f.mustPrompt(sid, "review a.go", sdk.StopReasonEndTurn)
	us, _ := f.cl.snapshot()
	order, calls := toolCalls(us)
	if len(order) != 2 {
		t.Fatalf("tool calls = %d, want 2", len(order))
	}
	good, bad := calls[order[0]], calls[order[1]]
	abs := filepath.Join(f.root, "a.go")
	if len(good.locs) != 1 || good.locs[0].Path != abs || good.locs[0].Line == nil || *good.locs[0].Line != 3 ||
		!strings.Contains(good.content, "a.go:3: warning: F does nothing") {
		t.Errorf("finding call: locations %s content %q", mustJSON(good.locs), good.content)
	}
	for _, l := range bad.locs {
		if l.Line != nil {
			t.Errorf("a refused finding was located at line %d", *l.Line)
		}
	}
	if bad.statuses[len(bad.statuses)-1] != "failed" {
		t.Errorf("refused finding statuses = %v", bad.statuses)
	}
}

// TestACP_E20_StopReasonsAndBadInput: a run that hits its turn limit
// answers max_turn_requests; a prompt to an unknown session, an empty
// execute prompt and a set_mode to an unknown session are structured
// errors, and the agent goes on serving.
func TestACP_E20_StopReasonsAndBadInput(t *testing.T) {
	f := start(t, setup{files: map[string]string{"a.go": "package a\n"}, opts: func(o *acp.Options) { o.MaxTurns = 1 }, script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"a.go"}}]}
{"content":"too late"}
`})
	sid := f.newSession("plan")
	f.mustPrompt(sid, "look around", sdk.StopReasonMaxTurnRequests)
	if _, err := f.prompt("no-such-session", "hi"); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("prompt to an unknown session: %v", err)
	}
	f.newSessionMode(sid, "execute")
	if _, err := f.conn.Prompt(t0(), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{}}); err == nil {
		t.Error("an empty execute prompt: no error")
	}
	if _, err := f.conn.SetSessionMode(t0(), sdk.SetSessionModeRequest{SessionId: "nope", ModeId: "plan"}); err == nil {
		t.Error("set_mode of an unknown session: no error")
	}
	f.newSessionMode(sid, "plan")
}

// TestACP_E20_TrustQuestionOutsideToolCall: the extensions' trust
// question, asked before any tool call, comes as a permission on a tool
// call of its own, which ends with the answer (completed when allowed,
// failed when refused).
func TestACP_E20_TrustQuestionOutsideToolCall(t *testing.T) {
	var answer tools.Answer
	f := start(t, setup{script: `{"content":"hi"}`, opts: func(o *acp.Options) {
		o.StartExtensions = func(ctx context.Context, _ string, ask tools.Approver) agentrun.Extensions {
			r, _ := ask.Approve(ctx, &tools.ApprovalRequest{Tool: "trust", Subject: ".agentls/hooks.json",
				Preview: "run the project's hooks: make lint"})
			answer = r.Answer
			return nil
		}
	}})
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "reject_once" }
	sid := f.newSession("")
	f.mustPrompt(sid, "hello", sdk.StopReasonEndTurn)
	us, perms := f.cl.snapshot()
	if len(perms) != 1 || answer != tools.AnswerDeny || !strings.Contains(perms[0].ToolCall.Content[0].Content.Content.Text.Text, "make lint") {
		t.Fatalf("trust question: %d permissions, answer %q", len(perms), answer)
	}
	_, calls := toolCalls(us)
	c := calls[perms[0].ToolCall.ToolCallId]
	if c == nil || c.statuses[len(c.statuses)-1] != sdk.ToolCallStatusFailed {
		t.Errorf("the question's tool call = %+v, want it ended failed", c)
	}
}

package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACP_E20_LoadReplaysAndContinues: a session one connection ran is
// loaded by another: session/load replays its conversation before it
// answers (the instruction as a user message, the read as a completed
// tool call, the answer as agent message), in the mode of its last run,
// and the next prompt continues it (the model gets the earlier turns);
// a mode set in one process is the mode of the next load.
// An unknown ID is invalid params.
func TestACP_E20_LoadReplaysAndContinues(t *testing.T) {
	f := start(t, setup{files: map[string]string{"a.go": "package a\n"}, script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"a.go"}}]}
{"content":"the first answer"}
`})
	sid := f.newSession("plan")
	f.mustPrompt(sid, "first question", sdk.StopReasonEndTurn)
	f.stop()

	g := start(t, setup{root: f.root, state: f.state, script: `{"content":"the second answer"}`})
	resp, err := g.conn.LoadSession(t0(), sdk.LoadSessionRequest{SessionId: sid, Cwd: g.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "plan" {
		t.Errorf("loaded mode = %s, want plan (its last run's)", mustJSON(resp.Modes))
	}
	us, _ := g.cl.snapshot()
	user := ""
	for _, u := range us {
		if m := u.UserMessageChunk; m != nil && m.Content.Text != nil {
			user += m.Content.Text.Text
		}
	}
	_, calls := toolCalls(us)
	if !strings.Contains(user, "first question") || !strings.Contains(messageText(us), "the first answer") || len(calls) != 1 {
		t.Fatalf("replay: user %q, agent %q, %d tool calls: %s", user, messageText(us), len(calls), mustJSON(us))
	}
	for _, c := range calls {
		if c.kind != sdk.ToolKindRead || c.statuses[len(c.statuses)-1] != "completed" {
			t.Errorf("replayed call = %+v", c)
		}
	}
	g.mustPrompt(sid, "second question", sdk.StopReasonEndTurn)
	// A mode set in one process holds in the next (acpx sets it in one
	// and prompts in another).
	g.newSessionMode(sid, "review")
	g.stop()
	h := start(t, setup{root: f.root, state: f.state})
	resp, err = h.conn.LoadSession(t0(), sdk.LoadSessionRequest{SessionId: sid, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil || resp.Modes.CurrentModeId != "review" {
		t.Errorf("loaded again: mode %s, %v; want review, set last", mustJSON(resp.Modes), err)
	}
	if req := g.lastRequest(); !strings.Contains(req, "first question") || !strings.Contains(req, "the first answer") {
		t.Errorf("the continued run did not get the conversation: %s", req)
	}
	if _, err := h.conn.LoadSession(t0(), sdk.LoadSessionRequest{SessionId: "0123456789ab", Cwd: h.root, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("session/load of an unknown session: no error")
	}
}

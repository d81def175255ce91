package lspserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent"
)

// TestRunEvents_Issue28_ExplanationWireShape (E21): the wire shape of a
// step's explanation carries every member of the gateway's, so a run view
// shows what `agentls why` prints.
func TestRunEvents_Issue28_ExplanationWireShape(t *testing.T) {
	e := &agent.Explanation{Step: 2, Turn: 1, Tool: "run_command", Subject: "make", Decision: "ask", Rule: "run_command(make *)",
		Source: "policy", Origin: "/p.json:3", Profile: "headless", ApprovedBy: "always:workspace", Grant: "abcd1234",
		Code: "x", Because: "asked because …", Outcome: "covered"}
	want, _ := json.Marshal(e)
	w := stepExplanation(e)
	if w == nil {
		t.Fatal("no wire explanation")
	}
	got, _ := json.Marshal(w)
	if !bytes.Equal(got, want) {
		t.Errorf("wire explanation differs:\n got %s\nwant %s", got, want)
	}
	if stepExplanation(nil) != nil {
		t.Error("nil explanation became one")
	}
}

package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// shrinking is a runner whose second tool goes away after the first call,
// as an MCP server's tools do when it is removed mid-run.
type shrinking struct {
	fakeRunner
	gone bool
}

func (s *shrinking) Tools() []*tools.Tool {
	ts := []*tools.Tool{{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object"}`), Risk: tools.RiskRead}}
	if !s.gone {
		ts = append(ts, &tools.Tool{Name: "mcp__s__echo", Description: "echo", Schema: json.RawMessage(`{"type":"object"}`), Risk: tools.RiskMCP})
	}
	return ts
}

func (s *shrinking) Call(ctx context.Context, name, args string) (tools.Result, error) {
	s.gone = true
	return s.fakeRunner.Call(ctx, name, args)
}

// Issue 25 (B6): a tool that goes away during a run is not offered in
// the model's next request.
func TestRun_B6_Issue25_RemovedToolsLeaveTheNextRequest(t *testing.T) {
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{}`}}},
		{Content: "done"},
	}}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &shrinking{}, Mode: ModePlan, Task: prompts.TaskData{Instruction: "x"}})
	if out.Status != StatusDone || len(m.reqs) != 2 {
		t.Fatalf("outcome %s with %d requests", out.Status, len(m.reqs))
	}
	if n := len(m.reqs[0].Tools); n != 2 {
		t.Errorf("first request offers %d tools, want 2", n)
	}
	if n := len(m.reqs[1].Tools); n != 1 || m.reqs[1].Tools[0].Name != "read_file" {
		t.Errorf("second request offers %+v, want read_file alone", m.reqs[1].Tools)
	}
}

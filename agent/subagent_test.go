package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// namedRunner offers the named tools and answers each call with "ok".
type namedRunner struct {
	names  []string
	calls  []string
	onCall func()
}

func (n *namedRunner) Tools() []*tools.Tool {
	var out []*tools.Tool
	for _, name := range n.names {
		risk := tools.RiskRead
		if name == "write_file" {
			risk = tools.RiskWrite
		}
		out = append(out, &tools.Tool{Name: name, Schema: json.RawMessage(`{"type":"object"}`), Risk: risk})
	}
	return out
}

func (n *namedRunner) Call(ctx context.Context, name, args string) (tools.Result, error) {
	n.calls = append(n.calls, name)
	if n.onCall != nil {
		n.onCall()
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: "ok:" + name}, nil
}

// callAgent runs the agent tool as a tool call of a run at depth would;
// a negative depth calls it outside any run.
func callAgent(ctx context.Context, tool *tools.Tool, depth int, args string) (tools.Result, error) {
	if depth >= 0 {
		ctx = withCaller(ctx, depth)
	}
	return tool.Run(ctx, &tools.Env{}, json.RawMessage(args))
}

// parentRun is the options of the run an agent tool belongs to.
func parentRun(m Model, runner ToolRunner, newRunner func([]string) ToolRunner, rep Reporter) *RunOptions {
	return &RunOptions{Model: m, Tools: runner, NewRunner: newRunner, Mode: ModePlan, Reporter: rep, Logger: discard()}
}

// TestSubAgent_A10_DepthCheck: the fallback layer refuses a sub-agent
// started from a sub-agent, whatever its tool list said.
func TestSubAgent_A10_DepthCheck(t *testing.T) {
	m := &scripted{resps: []*Response{{Content: "report"}}}
	sub := &namedRunner{names: []string{"read_file"}}
	newRunner := func([]string) ToolRunner { return sub }
	tool := SubAgentTool(parentRun(m, sub, newRunner, nil), nil)
	res, err := callAgent(t.Context(), tool, 1, `{"task":"recurse"}`)
	if err != nil || !res.IsError || res.Code != tools.CodePolicyDenied || !strings.Contains(res.Content, "cannot start sub-agents") {
		t.Errorf("depth 1: %+v, %v", res, err)
	}
	if len(m.reqs) != 0 {
		t.Error("the refused sub-agent asked the model")
	}
	res, err = callAgent(t.Context(), SubAgentTool(parentRun(m, sub, newRunner, nil), &SubAgentOptions{MaxDepth: 2}), 1, `{"task":"ok"}`)
	if err != nil || res.IsError || !strings.Contains(res.Content, "report") {
		t.Errorf("depth 1 with MaxDepth 2: %+v, %v", res, err)
	}
}

// TestSubAgent_A10_ToolSubset: the sub-agent gets the requested tools
// that sub-agents may have and its parent has, never "agent"; its prompt
// says it cannot spawn agents; its requests are background requests; its
// events reach the parent at depth 1, without text deltas.
func TestSubAgent_A10_ToolSubset(t *testing.T) {
	m := &scripted{resps: []*Response{
		{Content: "looking", ToolCalls: []ToolCall{{ID: "1", Name: "agent", Arguments: `{"task":"x"}`}}},
		{Content: "found it"},
	}}
	parentTools := &namedRunner{names: []string{"read_file", "search", "write_file", "agent"}}
	var gotAllowed []string
	sub := &namedRunner{}
	newRunner := func(allowed []string) ToolRunner {
		gotAllowed = allowed
		sub.names = append(slices.Clone(allowed), "agent") // a careless factory
		return sub
	}
	var events []Event
	tool := SubAgentTool(parentRun(m, parentTools, newRunner, ReporterFunc(func(e Event) { events = append(events, e) })),
		&SubAgentOptions{Tools: []string{"read_file", "search", "list_dir", "agent"}})
	res, err := callAgent(t.Context(), tool, 0, `{"task":"find it","tools":["read_file","agent","write_file","list_dir"]}`)
	if err != nil || res.IsError {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if !slices.Equal(gotAllowed, []string{"read_file"}) {
		t.Errorf("allowed = %q", gotAllowed)
	}
	if !strings.Contains(res.Content, "not available to sub-agents: agent, write_file, list_dir") || !strings.Contains(res.Content, "found it") {
		t.Errorf("result = %q", res.Content)
	}
	req := m.reqs[0]
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"read_file"}) || !req.Background || !strings.Contains(req.Messages[0].Content, "cannot spawn agents") ||
		!strings.Contains(req.Messages[0].Content, "Read-only") {
		t.Errorf("sub-agent request: tools %q, background %v, prompt %q", names, req.Background, req.Messages[0].Content)
	}
	if len(sub.calls) != 0 {
		t.Errorf("the sub-agent's agent call reached the runner: %q", sub.calls)
	}
	if tr := m.reqs[1].Messages[3]; !strings.Contains(tr.Content, "unknown_tool") || !strings.Contains(tr.Content, "cannot start sub-agents") {
		t.Errorf("agent call result = %q", tr.Content)
	}
	for _, e := range events {
		if e.Depth != 1 || e.Kind == EventText || e.Kind == EventDone {
			t.Errorf("forwarded event %+v", e)
		}
	}
	if !hasEvent(events, EventToolResult) {
		t.Error("the parent saw no event of the sub-agent")
	}
}

// TestSubAgent_A10_MaxTurnsLetsToolFinish: the turn limit is hard, but the
// tool call in progress when it is reached finishes first.
func TestSubAgent_A10_MaxTurnsLetsToolFinish(t *testing.T) {
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "1", Name: "read_file", Arguments: `{}`}, {ID: "2", Name: "search", Arguments: `{}`}}},
		{Content: "never asked"},
	}}
	sub := &namedRunner{names: []string{"read_file", "search"}}
	tool := SubAgentTool(parentRun(m, sub, func([]string) ToolRunner { return sub }, nil), &SubAgentOptions{MaxTurns: 1, Tools: []string{"read_file", "search"}})
	res, err := callAgent(t.Context(), tool, 0, `{"task":"t"}`)
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content, "Sub-agent failed: turn limit reached (1)") {
		t.Errorf("res %+v, err %v", res, err)
	}
	if !slices.Equal(sub.calls, []string{"read_file", "search"}) || len(m.reqs) != 1 {
		t.Errorf("calls %q, %d requests", sub.calls, len(m.reqs))
	}
}

// TestSubAgent_A10_Failures: a model error and a panic come back as
// "Sub-agent failed: …" results; the parent's cancellation is an error.
func TestSubAgent_A10_Failures(t *testing.T) {
	sub := &namedRunner{names: []string{"read_file"}}
	newRunner := func([]string) ToolRunner { return sub }
	res, err := callAgent(t.Context(), SubAgentTool(&RunOptions{Model: &scripted{errs: []error{ErrModelAuth}}, NewRunner: newRunner}, nil), -1, `{"task":"t"}`)
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content, "Sub-agent failed: model rejected the API key") {
		t.Errorf("model error: %+v, %v", res, err)
	}
	var events []Event
	res, err = callAgent(t.Context(), SubAgentTool(parentRun(&scripted{}, sub, func([]string) ToolRunner { panic("factory bug") },
		ReporterFunc(func(e Event) { events = append(events, e) })), nil), 0, `{"task":"t"}`)
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content, "Sub-agent failed: internal error") {
		t.Errorf("panic: %+v, %v", res, err)
	}
	if len(events) != 1 || events[0].Code != "subagent_failed" || events[0].Level != LevelWarning {
		t.Errorf("events = %+v", events)
	}
	res, err = callAgent(t.Context(), SubAgentTool(parentRun(&scripted{}, sub, nil, nil), nil), 0, `{"task":"t"}`)
	if err != nil || res.Code != tools.CodeUnavailable {
		t.Errorf("no runner factory: %+v, %v", res, err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	blocking := &scripted{block: true}
	cancel()
	_, err = callAgent(ctx, SubAgentTool(&RunOptions{Model: blocking, NewRunner: newRunner}, nil), -1, `{"task":"t"}`)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled parent: err = %v", err)
	}
}

// TestRun_A10_NestingBackstop: Run itself refuses to nest deeper than
// maxNesting, whatever the tools do.
func TestRun_A10_NestingBackstop(t *testing.T) {
	ctx := withCaller(t.Context(), maxNesting)
	out := Run(ctx, &RunOptions{Model: &scripted{}, Tools: &fakeRunner{}})
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrRecursion) {
		t.Errorf("outcome = %+v", out)
	}
}

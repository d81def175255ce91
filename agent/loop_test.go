package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// scripted is a Model that answers from a list and records requests.
type scripted struct {
	mu    sync.Mutex
	resps []*Response
	errs  []error
	reqs  []*Request
	block bool // block until ctx is done
}

func (m *scripted) Stream(ctx context.Context, req *Request, onText func(string)) (*Response, error) {
	m.mu.Lock()
	cp := *req
	cp.Messages = append([]Message(nil), req.Messages...)
	m.reqs = append(m.reqs, &cp)
	i := len(m.reqs) - 1
	m.mu.Unlock()
	if m.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if i < len(m.errs) && m.errs[i] != nil {
		return nil, m.errs[i]
	}
	if i >= len(m.resps) {
		return nil, errors.New("script exhausted")
	}
	if onText != nil && m.resps[i].Content != "" {
		onText(m.resps[i].Content)
	}
	return m.resps[i], nil
}

// fakeRunner records calls and answers every tool with "ok:NAME".
type fakeRunner struct {
	calls  []string
	cancel context.CancelFunc // cancels the run at the first call, if set
}

func (f *fakeRunner) Tools() []*tools.Tool {
	return []*tools.Tool{{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object"}`), Risk: tools.RiskRead}}
}

func (f *fakeRunner) Call(ctx context.Context, name, args string) (tools.Result, error) {
	f.calls = append(f.calls, name+" "+args)
	if f.cancel != nil {
		f.cancel()
		return tools.Result{}, context.Canceled
	}
	if name != "read_file" {
		return tools.Fail(tools.CodeUnknownTool, "", "no tool", ""), nil
	}
	return tools.Result{Content: "ok:" + name}, nil
}

func runWith(t *testing.T, ctx context.Context, m Model, r ToolRunner, maxTurns int) (*Outcome, []Event) {
	t.Helper()
	var events []Event
	out := Run(ctx, &RunOptions{Model: m, Tools: r, Mode: ModePlan, Task: prompts.TaskData{Instruction: "do it"},
		MaxTurns: maxTurns, Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	return out, events
}

// TestRun_A6_ToolCallsWinOverFinishReason: tool calls run even when the
// model says finish_reason "stop", and their results are paired by ID.
func TestRun_A6_ToolCallsWinOverFinishReason(t *testing.T) {
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}, {Name: "bogus", Arguments: `{}`}}, FinishReason: "stop"},
		{Content: "all done", FinishReason: "stop"},
	}}
	r := &fakeRunner{}
	out, _ := runWith(t, t.Context(), m, r, 0)
	if out.Status != StatusDone || out.Summary != "all done" {
		t.Fatalf("outcome = %+v", out)
	}
	if len(r.calls) != 2 {
		t.Fatalf("calls = %q", r.calls)
	}
	last := m.reqs[1].Messages
	var ids []string
	for _, msg := range last {
		if msg.Role == RoleTool {
			ids = append(ids, msg.ToolCallID)
		}
	}
	assistant := last[2]
	if assistant.Role != RoleAssistant || len(assistant.ToolCalls) != 2 || assistant.ToolCalls[1].ID == "" {
		t.Fatalf("assistant message = %+v", assistant)
	}
	want := []string{"a", assistant.ToolCalls[1].ID}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("tool result IDs (-want +got):\n%s", d)
	}
	if got := out.Steps; len(got) != 2 || got[0].OK != true || got[1].Code != "unknown_tool" {
		t.Errorf("steps = %+v", got)
	}
}

// TestRun_A2_EmptyResponseRetriedOnce: one empty answer is retried; two in
// a row fail the run with "model did not respond".
func TestRun_A2_EmptyResponseRetriedOnce(t *testing.T) {
	m := &scripted{resps: []*Response{{}, {Content: "fine"}}}
	out, events := runWith(t, t.Context(), m, &fakeRunner{}, 0)
	if out.Status != StatusDone || out.Summary != "fine" {
		t.Fatalf("outcome = %+v", out)
	}
	if !hasEvent(events, EventRetry) {
		t.Error("no retry event")
	}
	m = &scripted{resps: []*Response{{}, {Content: "  "}}}
	out, _ = runWith(t, t.Context(), m, &fakeRunner{}, 0)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrNoResponse) {
		t.Fatalf("outcome = %+v", out)
	}
}

// TestRun_TurnLimit: a model that never stops calling tools is stopped by
// the hard turn limit.
func TestRun_TurnLimit(t *testing.T) {
	var resps []*Response
	for i := 0; i < 10; i++ {
		resps = append(resps, &Response{ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{}`}}})
	}
	m := &scripted{resps: resps}
	out, _ := runWith(t, t.Context(), m, &fakeRunner{}, 3)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrBudgetExhausted) || len(m.reqs) != 3 {
		t.Fatalf("outcome = %+v after %d requests", out, len(m.reqs))
	}
}

// TestRun_E8_CancelDuringModelAndTools: cancellation ends the run as
// cancelled, whether it arrives during the stream or the tool phase, and
// every tool call in history still has a result.
func TestRun_E8_CancelDuringModelAndTools(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out, _ := runWith(t, ctx, &scripted{block: true}, &fakeRunner{}, 0)
	if out.Status != StatusCancelled {
		t.Fatalf("cancel during stream: %+v", out)
	}

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	m := &scripted{resps: []*Response{{ToolCalls: []ToolCall{{ID: "1", Name: "read_file"}, {ID: "2", Name: "read_file"}}}}}
	out, _ = runWith(t, ctx, m, &fakeRunner{cancel: cancel}, 0)
	if out.Status != StatusCancelled {
		t.Fatalf("cancel during tools: %+v", out)
	}
}

// TestRun_ModelErrorFails: a model error fails the run and keeps the
// sentinel for the wire mapping.
func TestRun_ModelErrorFails(t *testing.T) {
	m := &scripted{errs: []error{ErrModelAuth}}
	out, _ := runWith(t, t.Context(), m, &fakeRunner{}, 0)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrModelAuth) {
		t.Fatalf("outcome = %+v", out)
	}
}

// TestRun_E4_PromptNamesModeAndTools: the first request carries the system
// prompt of the mode and the task, and only the runner's tools.
func TestRun_E4_PromptNamesModeAndTools(t *testing.T) {
	m := &scripted{resps: []*Response{{Content: "ok"}}}
	runWith(t, t.Context(), m, &fakeRunner{}, 0)
	req := m.reqs[0]
	if len(req.Tools) != 1 || req.Tools[0].Name != "read_file" {
		t.Errorf("tools = %+v", req.Tools)
	}
	if !strings.Contains(req.Messages[0].Content, "Mode: PLAN") || req.Messages[1].Content != "do it" {
		t.Errorf("messages = %+v", req.Messages)
	}
}

func hasEvent(events []Event, k EventKind) bool {
	for _, e := range events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

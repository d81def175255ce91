package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// compactRequests returns the requests of m that carried no tools: the
// compaction requests.
func compactRequests(m *scripted) []*Request {
	var out []*Request
	for _, r := range m.reqs {
		if r.Tools == nil {
			out = append(out, r)
		}
	}
	return out
}

// TestCompact_A9_TriggeredByReportedUsage: the budget uses the prompt
// tokens the model reported, and the compaction request has no tools, is a
// background request, and forbids tools in its prompt.
func TestCompact_A9_TriggeredByReportedUsage(t *testing.T) {
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`}}, Usage: Usage{PromptTokens: 100}},
		{ToolCalls: []ToolCall{{ID: "b", Name: "read_file", Arguments: `{"path":"b.go"}`}}, Usage: Usage{PromptTokens: 900}},
		{Content: "Read a.go and b.go; next: answer."},
		{Content: "done"},
	}}
	var events []Event
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, ContextTokens: 1000, Mode: ModePlan,
		Task: prompts.TaskData{Instruction: "look"}, Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	if out.Status != StatusDone || out.Compactions != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	creqs := compactRequests(m)
	if len(creqs) != 1 || !creqs[0].Background || !strings.HasPrefix(creqs[0].Messages[0].Content, "Do NOT call any tools") {
		t.Fatalf("compaction requests = %+v", creqs)
	}
	last := m.reqs[3].Messages
	if len(last) != 5 || last[1].Content != "look" || !strings.Contains(last[2].Content, "Read a.go and b.go") ||
		last[3].ToolCalls[0].ID != "b" || last[4].ToolCallID != "b" {
		t.Errorf("after compaction: %s", Diagnose(last))
	}
	if !hasEvent(events, EventCompaction) {
		t.Error("no compaction event")
	}
}

// TestCompact_A9_KeepsPairing: whatever the shape of the conversation,
// the compacted one satisfies the pairing rules (the normalizer has
// nothing to repair), keeps the system prompt and the task, and keeps the
// last tool calls with their results.
func TestCompact_A9_KeepsPairing(t *testing.T) {
	sys := Message{Role: RoleSystem, Content: "sys"}
	task := user("the task")
	shapes := map[string][]Message{
		"work after the task": {sys, task, calls("a", "b"), result("a", "A"), result("b", "B"), said("thinking"),
			calls("c"), result("c", "C")},
		"history before the task": {sys, user("old"), calls("h1"), result("h1", "H"), said("old answer"), task,
			calls("c"), result("c", "C")},
		"earlier summary": {sys, task, user(summaryHeader + "before"), calls("a"), result("a", "A"), calls("c"), result("c", "C")},
		"no work yet":     {sys, user("old"), calls("h1"), result("h1", "H"), task},
	}
	for name, msgs := range shapes {
		t.Run(name, func(t *testing.T) {
			m := &scripted{resps: []*Response{{Content: "summary: a.go is fine"}}}
			r := &run{opts: &RunOptions{Model: m, ContextTokens: 100}, rep: ReporterFunc(func(Event) {}), log: discard()}
			r.msgs = append([]Message(nil), msgs...)
			changed, err := r.compact(t.Context(), 1, 999)
			if err != nil || !changed {
				t.Fatalf("compact = %v, %v", changed, err)
			}
			if err := ValidatePairing(r.msgs); err != nil {
				t.Errorf("%v\n%s", err, Diagnose(r.msgs))
			}
			if _, applied, err := Normalize(r.msgs, DefaultNormalizers()); len(applied) != 0 || err != nil {
				t.Errorf("normalizer repaired the compacted conversation: %+v %v", applied, err)
			}
			if r.msgs[0].Content != "sys" || r.msgs[1].Content != "the task" || !strings.Contains(r.msgs[2].Content, "a.go is fine") {
				t.Errorf("head = %s", Diagnose(r.msgs))
			}
			if lastAssistant := msgs[len(msgs)-2]; lastAssistant.Role == RoleAssistant &&
				r.msgs[len(r.msgs)-2].ToolCalls[0].ID != lastAssistant.ToolCalls[0].ID {
				t.Errorf("tail lost: %s", Diagnose(r.msgs))
			}
		})
	}
}

// TestCompact_A9_CircuitBreaker: 1st failure retry, 2nd micro-compaction,
// 3rd compaction off for the run; a success in between closes the
// breaker. Strict compaction fails the run at the first failure.
func TestCompact_A9_CircuitBreaker(t *testing.T) {
	bigResult := strings.Repeat("x", 5000)
	newRun := func(errs []error, strict bool) (*run, *scripted, *[]Event) {
		m := &scripted{errs: errs, resps: make([]*Response, len(errs))}
		for i := range m.resps {
			m.resps[i] = &Response{Content: fmt.Sprintf("summary %d", i)}
		}
		var events []Event
		r := &run{opts: &RunOptions{Model: m, ContextTokens: 1000, Strict: Strict{Compaction: strict}},
			rep: ReporterFunc(func(e Event) { events = append(events, e) }), log: discard()}
		r.msgs = []Message{{Role: RoleSystem}, user("task"), calls("a"), result("a", bigResult), calls("b"), result("b", "B")}
		return r, m, &events
	}
	down := errors.New("503")
	r, m, events := newRun([]error{down, down, down, nil}, false)
	for i := range 2 { // the first call fails twice (retry, then micro), the second once more
		if _, err := r.compact(t.Context(), i+1, 999); err != nil {
			t.Fatal(err)
		}
	}
	var codes []string
	for _, e := range *events {
		codes = append(codes, e.Code)
	}
	// Each failure is also what a strict run would stop at (seed 002).
	if strings.Join(codes, ",") != "strict_mode_would_fail,compaction_retry,strict_mode_would_fail,micro_compaction,strict_mode_would_fail,compaction_disabled" || !r.budget.off {
		t.Errorf("events = %q, off = %v", codes, r.budget.off)
	}
	if len(m.reqs) != 3 {
		t.Errorf("%d compaction requests, want 3", len(m.reqs))
	}
	if c := r.msgs[3].Content; !strings.Contains(c, "tool result cut to save context") || len(c) > 400 {
		t.Errorf("micro-compaction left %d bytes: %.100q", len(c), c)
	}
	if err := ValidatePairing(r.msgs); err != nil {
		t.Error(err)
	}
	if changed, _ := r.maybeCompact(t.Context(), 4); changed || len(m.reqs) != 3 {
		t.Error("compacted again after the breaker opened")
	}

	r, _, _ = newRun([]error{down, nil, down, nil}, false)
	if changed, err := r.maybeCompact(t.Context(), 1); !changed || err != nil || r.budget.failures != 0 {
		t.Errorf("retry after one failure: changed %v, err %v, failures %d", changed, err, r.budget.failures)
	}

	r, _, _ = newRun([]error{down}, true)
	if _, err := r.maybeCompact(t.Context(), 1); !errors.Is(err, ErrStrict) {
		t.Errorf("strict compaction: err = %v", err)
	}
}

// TestCompact_A9_Digest: an empty summary becomes a digest with roles,
// first lines and the file paths mentioned.
func TestCompact_A9_Digest(t *testing.T) {
	msgs := []Message{user("please fix pkg/util.go\nmore"),
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"cmd/main.go"}`}}},
		result("a", "package main // see internal/x.go"), said("e.g. fmt.Errorf is fine; README.md too")}
	got := digest(msgs, 10)
	for _, want := range []string{"- user: please fix pkg/util.go\n", "- assistant: called read_file", "- tool: package main",
		"Files mentioned: pkg/util.go, cmd/main.go, internal/x.go, README.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("digest misses %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"more", "fmt.Errorf", "e.g"} {
		if strings.Contains(got, bad+",") || strings.Contains(got, "- user: please fix pkg/util.go\nmore") {
			t.Errorf("digest has %q:\n%s", bad, got)
		}
	}
	if n := strings.Count(digest(append(msgs, msgs...), 3), "\n- "); n != 3 {
		t.Errorf("digest of the last 3 has %d bullet lines", n)
	}
}

// TestCompact_A9_TranscriptBounded: the compaction request stays inside
// the budget: each message clipped, the oldest dropped first.
func TestCompact_A9_TranscriptBounded(t *testing.T) {
	var msgs []Message
	for i := range 50 {
		id := fmt.Sprint(i)
		msgs = append(msgs, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "search", Arguments: `{}`}}},
			result(id, strings.Repeat("r", 10000)))
	}
	got := transcript(msgs, 20000)
	if len(got) > 21000 || !strings.HasPrefix(got, "[… ") || !strings.Contains(got, "[tool result of search]") {
		t.Errorf("transcript is %d bytes, starts %.40q", len(got), got)
	}
}

// TestCompact_A9_Estimate: bytes/4 without usage; reported usage plus
// what came after it when there is.
func TestCompact_A9_Estimate(t *testing.T) {
	msgs := []Message{user(strings.Repeat("a", 4000))}
	var b compactState
	if got := b.estimate(msgs, nil); got < 1000 || got > 1010 {
		t.Errorf("estimate without usage = %d", got)
	}
	b.observe(Usage{PromptTokens: 5000}, 1)
	msgs = append(msgs, said(strings.Repeat("b", 400)))
	if got := b.estimate(msgs, nil); got < 5100 || got > 5110 {
		t.Errorf("estimate with usage = %d", got)
	}
}

// TestCompact_A9_UnderReportedUsage (issue 27 item 3): a server that
// reports far too few prompt tokens does not keep the conversation from
// compacting: the byte estimate counts as well, and the larger wins.
func TestCompact_A9_UnderReportedUsage(t *testing.T) {
	msgs := []Message{user(strings.Repeat("a", 40000))}
	var b compactState
	b.observe(Usage{PromptTokens: 3}, 1)
	if got := b.estimate(msgs, nil); got < 10000 {
		t.Errorf("estimate with usage 3 for 40,000 bytes = %d, want the byte estimate (≈10,000)", got)
	}
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`}}, Usage: Usage{PromptTokens: 1}},
		{ToolCalls: []ToolCall{{ID: "b", Name: "read_file", Arguments: `{"path":"b.go"}`}}, Usage: Usage{PromptTokens: 1}},
		{Content: "Read a.go and b.go; next: answer."},
		{Content: "done"},
	}}
	big := &bigResults{size: 3000}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: big, ContextTokens: 1000, Mode: ModePlan,
		Task: prompts.TaskData{Instruction: "look"}})
	if out.Status != StatusDone || out.Compactions != 1 {
		t.Fatalf("a model that under-reports its usage: status %s, %d compactions, want one", out.Status, out.Compactions)
	}
}

// bigResults answers every read_file with size bytes.
type bigResults struct {
	fakeRunner
	size int
}

func (b *bigResults) Call(ctx context.Context, name, args string) (tools.Result, error) {
	return tools.Result{Content: strings.Repeat("x", b.size)}, nil
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestCompact_A9_NothingToSummarize: when only an earlier summary lies
// between the task and the last turn, compaction asks the model nothing.
func TestCompact_A9_NothingToSummarize(t *testing.T) {
	m := &scripted{}
	r := &run{opts: &RunOptions{Model: m, ContextTokens: 10}, rep: ReporterFunc(func(Event) {}), log: discard()}
	r.msgs = []Message{{Role: RoleSystem}, user("task"), user(summaryHeader + "s"), calls("a"), result("a", strings.Repeat("x", 999))}
	if changed, err := r.maybeCompact(t.Context(), 1); changed || err != nil || len(m.reqs) != 0 {
		t.Errorf("changed %v, err %v, %d requests", changed, err, len(m.reqs))
	}
}

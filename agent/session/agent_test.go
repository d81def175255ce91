package session

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// model answers from a list and records the requests.
type model struct {
	mu    sync.Mutex
	resps []*agent.Response
	reqs  [][]agent.Message
}

func (m *model) Stream(_ context.Context, req *agent.Request, _ func(string)) (*agent.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, append([]agent.Message(nil), req.Messages...))
	r := m.resps[0]
	m.resps = m.resps[1:]
	return r, nil
}

// bigTool answers every call with 3,000 bytes.
type bigTool struct{}

func (bigTool) Tools() []*tools.Tool {
	return []*tools.Tool{{Name: "read_file", Description: "read", Schema: []byte(`{"type":"object"}`), Risk: tools.RiskRead}}
}

func (bigTool) Call(context.Context, string, string) (tools.Result, error) {
	return tools.Result{Content: strings.Repeat("x", 3000)}, nil
}

func readCall(id string) *agent.Response {
	return &agent.Response{ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: `{}`}}}
}

// A9 across sessions: a run whose conversation is compacted leaves the
// compacted conversation in the session (a reset record), the next
// process resumes from it, and a resumed run that outgrows the budget is
// compacted again.
func TestSession_A9_CompactionAcrossResumes(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	run := func(s *Session, instruction string, resps ...*agent.Response) (*model, *agent.Outcome) {
		t.Helper()
		r, err := s.Begin(t.Context(), agent.ModeExecute, instruction)
		if err != nil {
			t.Fatal(err)
		}
		m := &model{resps: resps}
		out := agent.Run(t.Context(), &agent.RunOptions{Model: m, Tools: bigTool{}, Mode: agent.ModeExecute, ContextTokens: 2000,
			Task: prompts.TaskData{Instruction: instruction}, History: r.History(), Journal: r})
		r.End(out.Status, out.Turns, out.Summary)
		return m, out
	}
	_, out := run(s, "first", readCall("a"), readCall("b"), &agent.Response{Content: "summary one: read a and b"}, &agent.Response{Content: "done one"})
	if out.Status != agent.StatusDone || out.Compactions != 1 {
		t.Fatalf("first run: %+v", out)
	}
	st2, _ := reopen(t, st)
	s2, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	hist := s2.Messages()
	all := ""
	for _, m := range hist {
		all += m.Content + "\n"
	}
	if !strings.Contains(all, "summary one") || strings.Count(all, strings.Repeat("x", 3000)) > 1 {
		t.Fatalf("the session did not keep the compacted conversation: %s", agent.Diagnose(hist))
	}
	m, out := run(s2, "second", readCall("c"), readCall("d"), &agent.Response{Content: "summary two"}, &agent.Response{Content: "done two"})
	if out.Status != agent.StatusDone || out.Compactions != 1 {
		t.Fatalf("second run: %+v", out)
	}
	if first := m.reqs[0]; !strings.Contains(first[1].Content+first[2].Content+first[3].Content, "summary one") {
		t.Errorf("the resumed run's first request lacks the earlier summary: %s", agent.Diagnose(first))
	}
	if err := agent.ValidatePairing(s2.Messages()); err != nil {
		t.Errorf("session after the second compaction: %v", err)
	}
}

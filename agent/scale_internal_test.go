package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// endlessModel calls read_file until it has made n calls, then answers;
// compaction requests (no tools) get a summary. It reports prompt tokens
// as a server would (4 bytes a token) and records each tool request's
// size.
type endlessModel struct {
	n int

	mu    sync.Mutex // guards the fields below
	calls int
	sizes []int // bytes of each tool request's messages
	lens  []int // messages of each tool request
}

func (m *endlessModel) Stream(_ context.Context, req *Request, _ func(string)) (*Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	usage := Usage{PromptTokens: int64(messageBytes(req.Messages) / 4)}
	if req.Tools == nil {
		return &Response{Content: "Read files 1 to " + fmt.Sprint(m.calls) + "; next: the rest.", Usage: usage}, nil
	}
	m.sizes = append(m.sizes, messageBytes(req.Messages))
	m.lens = append(m.lens, len(req.Messages))
	if m.calls == m.n {
		return &Response{Content: "done", Usage: usage}, nil
	}
	m.calls++
	return &Response{ToolCalls: []ToolCall{{ID: fmt.Sprintf("c%d", m.calls), Name: "read_file",
		Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, m.calls)}}, Usage: usage}, nil
}

// bigRunner answers every call with 1.5 KB, as reading a file does.
type bigRunner struct{ fakeRunner }

func (b *bigRunner) Call(ctx context.Context, name, args string) (tools.Result, error) {
	return tools.Result{Content: bigResult}, nil
}

var bigResult = strings.Repeat("a line of the file, with code\n", 50)

// TestLongSession_I16_RequestsBounded: in a session of 1,000 tool turns
// with the default context, compaction keeps every request below the
// context window, and the requests of the last turns are no larger than
// those of the first compaction cycle, give or take one turn (compaction
// starts when a request would pass 80 %, so each cycle ends one turn
// beyond it, whatever the summary's length): what a turn sends (and so what the
// agent encodes and the journal holds) does not grow with the session.
func TestLongSession_I16_RequestsBounded(t *testing.T) {
	const n = 1000
	m := &endlessModel{n: n}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &bigRunner{}, Mode: ModePlan, MaxTurns: n + 1,
		Task: prompts.TaskData{Instruction: "read everything"}})
	if out.Status != StatusDone || len(out.Steps) != n {
		t.Fatalf("outcome: %s after %d steps: %v", out.Status, len(out.Steps), out.Err)
	}
	if out.Compactions < 10 {
		t.Fatalf("%d compactions in %d turns, want ≥ 10", out.Compactions, n)
	}
	firstCycle := 0
	for i, s := range m.sizes {
		if s/4 > DefaultContextTokens {
			t.Fatalf("turn %d: request of %d bytes, over the context of %d tokens", i+1, s, DefaultContextTokens)
		}
		if i < n/10 {
			firstCycle = max(firstCycle, s)
		}
	}
	for i := n - 100; i < len(m.sizes); i++ {
		if slack := len(bigResult) + 200; m.sizes[i] > firstCycle+slack {
			t.Errorf("turn %d: request of %d bytes (%d messages), larger than any of the first %d turns (%d bytes) and a turn",
				i+1, m.sizes[i], m.lens[i], n/10, firstCycle)
		}
	}
}

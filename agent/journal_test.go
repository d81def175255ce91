package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/prompts"
)

// journal records every checkpoint.
type journal struct{ cps [][]Message }

func (j *journal) Checkpoint(msgs []Message) { j.cps = append(j.cps, slices.Clone(msgs)) }

// A11: the loop checkpoints once the task is in, after each turn's tool
// results and at the end; every checkpoint is a paired conversation
// without the system prompt, and the last is the outcome's.
func TestRun_A11_JournalAtTurnBoundaries(t *testing.T) {
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{}`}, {ID: "b", Name: "read_file", Arguments: `{}`}}},
		{ToolCalls: []ToolCall{{ID: "c", Name: "read_file", Arguments: `{}`}}},
		{Content: "done"},
	}}
	j := &journal{}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Mode: ModePlan, Task: prompts.TaskData{Instruction: "go"}, Journal: j})
	if out.Status != StatusDone {
		t.Fatalf("outcome %+v", out)
	}
	var lens []int
	for _, cp := range j.cps {
		lens = append(lens, len(cp))
		if cp[0].Role == RoleSystem {
			t.Errorf("checkpoint with the system prompt: %s", Diagnose(cp))
		}
		if err := ValidatePairing(cp); err != nil {
			t.Errorf("unpaired checkpoint: %v: %s", err, Diagnose(cp))
		}
	}
	// task; + call a,b and results; + call c and result; + answer
	if d := cmp.Diff([]int{1, 4, 6, 7}, lens); d != "" {
		t.Errorf("checkpoint sizes (-want +got):\n%s", d)
	}
	if d := cmp.Diff(out.Messages, j.cps[len(j.cps)-1]); d != "" {
		t.Errorf("last checkpoint is not the outcome's conversation:\n%s", d)
	}
}

// A7 on a resumed session: a history that ends in a tool call without
// result (the process died mid-turn) is repaired before the first request,
// and the repair is reported.
func TestRun_A7_ResumedHistoryRepaired(t *testing.T) {
	m := &scripted{resps: []*Response{{Content: "continued"}}}
	var events []Event
	history := []Message{user("first task"), calls("x1"), result("x1", "r"), calls("x2")}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Mode: ModeExecute, History: history,
		Task: prompts.TaskData{Instruction: "go on"}, Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	if out.Status != StatusDone {
		t.Fatalf("outcome %+v", out)
	}
	first := m.reqs[0].Messages
	if err := ValidatePairing(first); err != nil {
		t.Fatalf("first request unpaired: %v: %s", err, Diagnose(first))
	}
	if first[5].ToolCallID != "x2" || first[5].Content != SyntheticResult || !strings.Contains(first[6].Content, "go on") {
		t.Errorf("first request: %s", Diagnose(first))
	}
	var reps []string
	for _, e := range events {
		if e.Kind == EventRepair {
			reps = append(reps, e.Repairs...)
		}
	}
	if d := cmp.Diff([]string{"synthetic_tool_result:x2"}, reps); d != "" {
		t.Errorf("repairs (-want +got):\n%s", d)
	}
}

// A9 on a resumed session: a history larger than the budget is compacted
// before the first request of the continued run, the summary keeps the new
// task in place, and the journal sees the compacted conversation.
func TestRun_A9_ResumedHistoryCompacted(t *testing.T) {
	big := strings.Repeat("x", 4000)
	history := []Message{user("first task"), calls("h1"), result("h1", big), said("first answer")}
	m := &scripted{resps: []*Response{{Content: "summary: read h1"}, {Content: "done"}}}
	j := &journal{}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Mode: ModeExecute, History: history, ContextTokens: 1000,
		Task: prompts.TaskData{Instruction: "second task"}, Journal: j})
	if out.Status != StatusDone || out.Compactions != 1 {
		t.Fatalf("outcome %+v", out)
	}
	last := j.cps[len(j.cps)-1]
	if len(last) >= len(history)+2 || !strings.Contains(last[0].Content, "second task") || !strings.Contains(last[1].Content, "read h1") {
		t.Errorf("journal after compaction: %s", Diagnose(last))
	}
	if req := m.reqs[1].Messages; strings.Contains(req[len(req)-1].Content, big) {
		t.Error("the compacted history was sent whole")
	}
}

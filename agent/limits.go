package agent

import (
	"fmt"

	"github.com/agentls/agentls/tools"
)

// MaxToolCallsPerAnswer bounds the tool calls of one model answer that
// run. The rest are not run: the first of them stays in the conversation
// with a resource_limit result that says how many were left out, the
// others are dropped, so that a runaway answer cannot grow the next
// request without bound.
const MaxToolCallsPerAnswer = 32

// keepArgsBytes: the arguments of a call the gateway refused as
// invalid_args or resource_limit are replaced in the conversation by a
// short placeholder when they are longer than this; the model has the
// refusal, and resending megabytes of rejected arguments helps nobody.
const keepArgsBytes = 16 << 10

// boundCalls splits the calls of one answer into those that run and the
// ones the conversation keeps (the same, plus the first call over the
// limit), and says how many were over it. Arguments over the gateway's
// limit are replaced in the kept copy at once.
func (r *run) boundCalls(calls []ToolCall, turn int) (runs, kept []ToolCall, over int) {
	runs = calls
	if len(calls) > MaxToolCallsPerAnswer {
		runs, over = calls[:MaxToolCallsPerAnswer], len(calls)-MaxToolCallsPerAnswer
		calls = calls[:MaxToolCallsPerAnswer+1]
		r.emit(Event{Kind: EventWarning, Level: LevelWarning, Turn: turn, Code: "tool_call_limit",
			Message: fmt.Sprintf("the model asked for %d tool calls in one answer; ran the first %d", len(runs)+over, len(runs))})
	}
	kept = make([]ToolCall, len(calls))
	for i, c := range calls {
		if len(c.Arguments) > tools.MaxArgsBytes {
			c.Arguments = argsPlaceholder(len(c.Arguments))
		}
		kept[i] = c
	}
	return runs, kept, over
}

// answerOver answers the first call over MaxToolCallsPerAnswer, the last
// of kept, when over calls were not run.
func (r *run) answerOver(kept []ToolCall, over, turn int) {
	if over == 0 {
		return
	}
	extra := kept[len(kept)-1]
	res := tools.Fail(tools.CodeResourceLimit, "",
		fmt.Sprintf("this call and the %d after it were not run: at most %d tool calls run per answer; the rest were left out of the conversation", over-1, MaxToolCallsPerAnswer),
		fmt.Sprintf("call again what is still needed, at most %d at a time", MaxToolCallsPerAnswer))
	r.out.Steps = append(r.out.Steps, Step{Turn: turn, Tool: extra.Name, Code: string(res.Code)})
	r.emit(Event{Kind: EventToolResult, Turn: turn, Tool: extra.Name, Code: string(res.Code), Message: summarize(res)})
	r.msgs = append(r.msgs, Message{Role: RoleTool, ToolCallID: extra.ID, Content: res.Content})
}

// argsPlaceholder stands for arguments left out of the conversation; it
// is a JSON object, as providers expect arguments to be.
func argsPlaceholder(n int) string {
	return fmt.Sprintf(`{"_omitted":"%d bytes of arguments, refused and left out"}`, n)
}

// dropRefusedArgs replaces the arguments of a refused call in the kept
// copy when they are too long to be worth resending.
func dropRefusedArgs(kept *ToolCall, res tools.Result) {
	if res.IsError && (res.Code == tools.CodeInvalidArgs || res.Code == tools.CodeResourceLimit) && len(kept.Arguments) > keepArgsBytes {
		kept.Arguments = argsPlaceholder(len(kept.Arguments))
	}
}

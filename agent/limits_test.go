package agent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
)

// A14, #12 item 4: at most MaxToolCallsPerAnswer calls of one answer run;
// the first call over the limit is answered with resource_limit (saying
// how many were left out) and the rest are dropped from the conversation,
// so the next request stays small. Before, 10,000 calls in one answer all
// ran and the next request was 1.7-2.5 MB.
func TestLoop_A14_ToolCallsPerAnswerCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls []string
		for i := range 10000 {
			calls = append(calls, fmt.Sprintf(`{"id":"c%d","name":"read_file","arguments":{"path":"main.go"}}`, i))
		}
		script := `{"tool_calls":[` + strings.Join(calls, ",") + `]}` + "\n" + `{"content":"done"}`
		h := newHarness(t, workspace(t), script)
		out := h.run(t.Context())
		if out.Status != agent.StatusDone {
			t.Fatalf("status %s: %v", out.Status, out.Err)
		}
		if n := len(out.Steps); n != agent.MaxToolCallsPerAnswer+1 {
			t.Errorf("%d steps, want %d run and one refused", n, agent.MaxToolCallsPerAnswer)
		}
		if last := out.Steps[len(out.Steps)-1]; last.Code != string(tools.CodeResourceLimit) {
			t.Errorf("last step %+v, want resource_limit", last)
		}
		if len(h.find(agent.EventWarning, "tool_call_limit")) != 1 {
			t.Errorf("no tool_call_limit warning: %v", h.kinds(agent.EventWarning))
		}
		reqs := h.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		if n := strings.Count(reqs[1], `"type":"function"`) - strings.Count(reqs[0], `"type":"function"`); n != agent.MaxToolCallsPerAnswer+1 {
			t.Errorf("the next request holds %d tool calls, want %d", n, agent.MaxToolCallsPerAnswer+1)
		}
		if len(reqs[1]) > 128<<10 {
			t.Errorf("the next request has %d bytes", len(reqs[1]))
		}
		if !strings.Contains(reqs[1], "9967 after it were not run") {
			t.Errorf("the model is not told how many calls were left out")
		}
	})
}

// T9, A14, #12 item 4: arguments over tools.MaxArgsBytes are refused before
// they are parsed, and refused arguments that are long are not sent back
// to the model: the conversation holds a short placeholder. Before, a
// rejected 5 MB argument went back to the model with every request.
func TestLoop_T9_OversizedArgumentsNotResent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		huge := strings.Repeat("a", tools.MaxArgsBytes+1)
		long := strings.Repeat("b", 100<<10) // over the schema's 4096 for a path: invalid_args
		script := fmt.Sprintf(`{"tool_calls":[{"id":"h","name":"read_file","arguments":{"path":%q}},{"id":"l","name":"read_file","arguments":{"path":%q}},{"id":"ok","name":"read_file","arguments":{"path":"main.go"}}]}`, huge, long) +
			"\n" + `{"content":"done"}`
		h := newHarness(t, workspace(t), script)
		out := h.run(t.Context())
		var codes []string
		for _, s := range out.Steps {
			codes = append(codes, s.Code)
		}
		if got := strings.Join(codes, ","); got != "resource_limit,invalid_args," {
			t.Errorf("codes %q, want resource_limit,invalid_args,(ok)", got)
		}
		reqs := h.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		if len(reqs[1]) > 64<<10 {
			t.Errorf("the second request has %d bytes: refused arguments were sent back", len(reqs[1]))
		}
		var req struct {
			Messages []struct {
				ToolCalls []struct {
					Function struct{ Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(reqs[1]), &req); err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				args = append(args, c.Function.Arguments)
				if !json.Valid([]byte(c.Function.Arguments)) {
					t.Errorf("arguments in the history are not JSON: %.80s", c.Function.Arguments)
				}
			}
		}
		if len(args) != 3 || !strings.Contains(args[0], "_omitted") || !strings.Contains(args[1], "_omitted") || !strings.Contains(args[2], "main.go") {
			t.Errorf("history arguments %.200q", args)
		}
	})
}

package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentls/agentls/agent"
)

// Script lines shared by the faults.
const (
	readMain   = `{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}]}`
	readBig    = `{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"big.txt"}}]}`
	readReadme = `{"tool_calls":[{"id":"c2","name":"read_file","arguments":{"path":"README.md"}}]}`
	final      = `{"content":"main.go prints hi."}`
)

// fault is one row of the fault matrix: a scripted fault, the run it
// provokes, and what must hold afterwards.
type fault struct {
	name, req string
	script    []string
	setup     func(h *harness)
	cancelAt  time.Duration // cancel the run after this much fake time
	check     func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration)
}

func lines(s ...string) []string { return s }

// TestFaultMatrix runs every model and conversation fault of issue 5
// through the real engine (openai adapter, llmtest server over net.Pipe,
// tools.Gateway) inside a synctest bubble, and prints one line per fault.
// Each run must end well or fail clearly: no crash, no hang (the bubble
// would deadlock), no goroutine left behind (the bubble and goleak), the
// key never in any output, and the right events.
func TestFaultMatrix(t *testing.T) {
	root := workspace(t)
	big := strings.Repeat("big.txt line with some filler text to make it large\n", 400) // ~21 KB
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	var matrix []string
	for _, f := range faults() {
		t.Run(f.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, root, strings.Join(f.script, "\n"))
				if f.setup != nil {
					f.setup(h)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if f.cancelAt > 0 {
					time.AfterFunc(f.cancelAt, cancel)
				}
				start := time.Now()
				out := h.run(ctx)
				elapsed := time.Since(start)
				if out == nil || out.Status == "" {
					t.Fatalf("no outcome: %+v", out)
				}
				h.noLeak(out)
				if done := h.find(agent.EventDone, ""); len(done) != 1 || done[0].Message != string(out.Status) {
					t.Errorf("done events = %+v", done)
				}
				f.check(t, h, out, elapsed)
				matrix = append(matrix, fmt.Sprintf("%-56s %-7s %s", f.name, f.req, h.line(out, elapsed)))
			})
		})
	}
	report := "fault matrix (fault, requirement, outcome):\n" + strings.Join(matrix, "\n")
	t.Log(report)
	if testing.Verbose() {
		fmt.Println(report)
	}
}

func faults() []fault {
	return slices.Concat(apiFaults(), answerFaults(), historyFaults(), compactionFaults(), subAgentFaults(), inputFaults())
}

// apiFaults are HTTP-level failures (A5).
func apiFaults() []fault {
	return []fault{
		{name: "429 with Retry-After: 2", req: "A5", script: lines(`{"status":429,"retry_after":"2","error":"slow down"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				r := h.find(agent.EventRetry, "429")
				if len(r) != 1 || !strings.Contains(r[0].Message, "in 2s") || elapsed != 2*time.Second {
					t.Errorf("retries %+v after %s, want one, waiting 2s", r, elapsed)
				}
			}},
		{name: "429 without Retry-After (exponential backoff)", req: "A5", script: lines(`{"status":429}`, `{"status":429}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				// 0.5 s then 1 s, each minus up to a fifth of jitter.
				if n := len(h.find(agent.EventRetry, "429")); n != 2 || elapsed < 1200*time.Millisecond || elapsed > 1500*time.Millisecond {
					t.Errorf("%d retries in %s, want 2 in 1.2-1.5s", n, elapsed)
				}
			}},
		{name: "429 four times (at most 3 retries)", req: "A5",
			script: lines(`{"status":429,"retry_after":"1"}`, `{"status":429,"retry_after":"1"}`, `{"status":429,"retry_after":"1"}`,
				`{"status":429,"retry_after":"1","error":"quota"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelRateLimited, "429", "quota")
				if n := len(h.srv.Requests()); n != 4 || len(h.find(agent.EventRetry, "429")) != 3 || elapsed != 3*time.Second {
					t.Errorf("%d requests, %d retry events, %s", n, len(h.find(agent.EventRetry, "429")), elapsed)
				}
			}},
		{name: "429 asking for a 1 h wait", req: "A5", script: lines(`{"status":429,"retry_after":"3600"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelRateLimited, "retry after 1h0m0s")
				if elapsed != 0 || len(h.srv.Requests()) != 1 {
					t.Errorf("waited %s, %d requests", elapsed, len(h.srv.Requests()))
				}
			}},
		{name: "500 Internal Server Error", req: "A5", script: lines(`{"status":500}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:500")
			}},
		{name: "503 overloaded, foreground run (retried)", req: "A5", script: lines(`{"status":503,"retry_after":"1"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:503")
			}},
		{name: "529 overloaded, foreground run (retried)", req: "A5", script: lines(`{"status":529,"retry_after":"1"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:529")
			}},
		{name: "503 overloaded, background run (fails fast)", req: "A5", script: lines(`{"status":503,"retry_after":"1"}`, final),
			setup: func(h *harness) { h.opts.Background = true },
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelUnavailable, "503")
				wantEvents(t, h)
				if len(h.srv.Requests()) != 1 || elapsed != 0 {
					t.Errorf("%d requests in %s", len(h.srv.Requests()), elapsed)
				}
			}},
		{name: "529 overloaded, background run (fails fast)", req: "A5", script: lines(`{"status":529}`, final),
			setup: func(h *harness) { h.opts.Background = true },
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrModelUnavailable, "529")
				if len(h.srv.Requests()) != 1 {
					t.Errorf("%d requests", len(h.srv.Requests()))
				}
			}},
		{name: "401, the server echoes the key", req: "A5", script: lines(`{"status":401,"error":"Incorrect API key provided: `+testKey+`"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrModelAuth, "check OPENAI_API_KEY", "401", "[redacted]")
				if len(h.srv.Requests()) != 1 {
					t.Errorf("%d requests, want 1 (no retry on 401)", len(h.srv.Requests()))
				}
			}},
		{name: "connection dropped before any response", req: "A5", script: lines(`{"drop":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:connection")
			}},
		{name: "wrong content type (an HTML error page)", req: "A5", script: lines(`{"content":"<html>","content_type":"text/html"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrModelBadResponse, "text/html")
			}},
	}
}

// answerFaults are broken answers: empty, cut, stalled, malformed (A2-A6).
func answerFaults() []fault {
	return []fault{
		{name: "empty choice, then an answer", req: "A2", script: lines(`{"empty":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:empty")
			}},
		{name: "empty choice twice", req: "A2", script: lines(`{"empty":true}`, `{"empty":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrNoResponse, "model did not respond")
			}},
		{name: "connection cut before the tool-call delta", req: "A4", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"cut_after":1}`, readMain, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file")
				wantEvents(t, h, "retry:incomplete")
			}},
		{name: "connection cut inside tool-call arguments, then whole", req: "A3 A4", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"cut_after":3}`, readMain, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file")
				wantEvents(t, h, "retry:incomplete")
			}},
		{name: "connection cut inside tool-call arguments, twice", req: "A3 A4", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"cut_after":3}`,
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"cut_after":3}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file=invalid_args")
				wantEvents(t, h, "retry:incomplete", "warning:partial_tool_calls")
				wantRequestHas(t, h, 2, "send one JSON object matching the schema")
			}},
		{name: "no finish reason, text, then whole", req: "A4", script: lines(`{"content":"partial answ","no_finish":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:incomplete")
			}},
		{name: "no finish reason, text, twice (partial answer)", req: "A4", script: lines(
			`{"content":"partial answ","no_finish":true}`, `{"content":"partial answer two","no_finish":true}`),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				if out.Status != agent.StatusDone || !out.Incomplete || !strings.Contains(out.Summary, "partial answer two") ||
					!strings.Contains(out.Summary, "cut off") {
					t.Errorf("outcome = %+v", out)
				}
				wantEvents(t, h, "retry:incomplete", "warning:incomplete")
			}},
		{name: "no finish reason, complete tool calls (run them)", req: "A4", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"no_finish":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file")
				wantEvents(t, h, "warning:incomplete_tool_calls")
			}},
		{name: "garbage chunk mid-stream", req: "A4", script: lines(`{"content":"abc","garbage":true}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:incomplete")
			}},
		{name: "malformed tool-call argument JSON", req: "A3", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":"{\"path\": \"main.go\""}]}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file=invalid_args")
				wantRequestHas(t, h, 1, `arguments are not valid JSON`, `send one JSON object matching the schema`, `minLength`)
			}},
		{name: "hallucinated tool name", req: "A3 T2", script: lines(
			`{"tool_calls":[{"id":"c1","name":"delete_everything","arguments":{"path":"/"}}]}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "delete_everything=unknown_tool")
				wantRequestHas(t, h, 1, "available tools: read_file, list_dir, search")
			}},
		{name: "tool calls with finish_reason stop", req: "A6", script: lines(
			`{"tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"main.go"}}],"finish_reason":"stop"}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file")
			}},
		{name: "stream stalls (watchdog), then answers", req: "A5", script: lines(`{"content":"abc","stall_ms":600000}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "retry:stalled")
				if elapsed != 5*time.Second {
					t.Errorf("elapsed %s, want the 5s stall timeout", elapsed)
				}
			}},
		{name: "stream stalls twice", req: "A5", script: lines(`{"delay_ms":600000}`, `{"delay_ms":600000}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelStalled, "no data for 5s")
				if elapsed != 10*time.Second {
					t.Errorf("elapsed %s, want 2 × 5s", elapsed)
				}
			}},
		{name: "stream stalls twice after the first chunk (issue 26 item 7c)", req: "A5", script: lines(
			`{"content":"abc","stall_ms":600000,"stall_after":2}`, `{"content":"abc","stall_ms":600000,"stall_after":2}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelUnavailable, "no data for 5s")
				if !errors.Is(out.Err, agent.ErrModelStalled) {
					t.Errorf("error %v does not wrap ErrModelStalled", out.Err)
				}
				wantEvents(t, h, "retry:stalled")
				if elapsed != 10*time.Second {
					t.Errorf("elapsed %s, want 2 × 5s", elapsed)
				}
			}},
		{name: "slow server hits the request deadline", req: "A5",
			script: lines(`{"content":"abc","delay_ms":600000}`, final),
			setup: func(h *harness) {
				h.mopts.StallTimeout, h.mopts.RequestTimeout = time.Hour, 20*time.Second
			},
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				wantFailed(t, out, agent.ErrModelUnavailable, "timed out after 20s")
				if elapsed != 20*time.Second || len(h.srv.Requests()) != 1 {
					t.Errorf("elapsed %s, %d requests", elapsed, len(h.srv.Requests()))
				}
			}},
		{name: "editor cancels mid-stream", req: "A5 E8", script: lines(`{"content":"abcdef","stall_ms":600000}`, final),
			cancelAt: 3 * time.Second,
			setup:    func(h *harness) { h.mopts.StallTimeout = time.Hour },
			check: func(t *testing.T, h *harness, out *agent.Outcome, elapsed time.Duration) {
				if out.Status != agent.StatusCancelled || !errors.Is(out.Err, context.Canceled) || elapsed != 3*time.Second {
					t.Errorf("outcome %+v after %s, want cancelled at once (3s)", out, elapsed)
				}
			}},
	}
}

// historyFaults are broken conversations (A7, A8).
func historyFaults() []fault {
	resumed := []agent.Message{
		{Role: agent.RoleTool, ToolCallID: "ghost0", Content: "result before any call"},
		{Role: agent.RoleUser, Content: "earlier question"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
			{ID: "old1", Name: "read_file", Arguments: `{"path":"main.go"}`},
			{ID: "old2", Name: "list_dir", Arguments: `{"path":"."}`},
		}},
		{Role: agent.RoleTool, ToolCallID: "old1", Content: "package main"},
		{Role: agent.RoleTool, ToolCallID: "old1", Content: "package main (again)"},
		{Role: agent.RoleTool, ToolCallID: "ghost", Content: "stray"},
		{Role: agent.RoleAssistant, Content: "earlier answer"},
	}
	return []fault{
		{name: "duplicate tool-call IDs in one answer", req: "A7", script: lines(
			`{"tool_calls":[{"id":"dup","name":"read_file","arguments":{"path":"main.go"}},{"id":"dup","name":"list_dir","arguments":{"path":"."}}]}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file", "list_dir")
				wantEvents(t, h, "repair:tool_call_ids")
				wantPaired(t, out)
			}},
		{name: "tool-call ID reused in a later answer", req: "A7", script: lines(readMain,
			`{"tool_calls":[{"id":"c1","name":"list_dir","arguments":{"path":"pkg"}}]}`, final),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file", "list_dir")
				wantEvents(t, h, "repair:tool_call_ids")
				wantPaired(t, out)
			}},
		{name: "resumed history: orphans, duplicate, unanswered call", req: "A7", script: lines(final),
			setup: func(h *harness) { h.opts.History = resumed },
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "repair:tool_result_pairing", "repair:orphan_tool_result_remover")
				got := slices.Concat(h.find(agent.EventRepair, "")[0].Repairs, h.find(agent.EventRepair, "")[1].Repairs)
				want := []string{"duplicate_tool_result:old1", "synthetic_tool_result:old2", "orphan_tool_result:ghost0", "orphan_tool_result:ghost"}
				if !slices.Equal(got, want) {
					t.Errorf("repairs = %q, want %q", got, want)
				}
				if d := h.find(agent.EventRepair, "")[0].Diagnostic; !strings.Contains(d, "assistant(tool_use=[old1,old2])") ||
					strings.Contains(d, "package main") {
					t.Errorf("diagnostic = %q", d)
				}
				wantRequestHas(t, h, 0, "no result was recorded for this call")
				wantPaired(t, out)
			}},
		{name: "resumed history, strict pairing", req: "A7 A8", script: lines(final),
			setup: func(h *harness) { h.opts.History, h.opts.Strict = resumed, agent.Strict{Pairing: true} },
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrStrict, "synthetic_tool_result:old2")
				if len(h.srv.Requests()) != 0 {
					t.Errorf("%d requests, want none", len(h.srv.Requests()))
				}
			}},
	}
}

// compactionFaults trigger compaction with a small context (A9).
func compactionFaults() []fault {
	small := func(h *harness) { h.opts.ContextTokens = 4000 }
	return []fault{
		{name: "compaction answer contains a tool call", req: "A9", script: lines(readBig, readReadme,
			`{"content":"Read big.txt (filler) and README.md.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}`, final),
			setup: small,
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "read_file", "read_file")
				wantEvents(t, h, "repair:compaction_tool_calls", "compaction:")
				creq := h.requests()[2]
				var raw map[string]json.RawMessage
				if err := json.Unmarshal([]byte(creq), &raw); err != nil || raw["tools"] != nil ||
					!strings.Contains(creq, "Do NOT call any tools") {
					t.Errorf("compaction request has tools or no tool ban: %.300s", creq)
				}
				wantRequestHas(t, h, 3, "Summary of the earlier conversation", `read_file {\"path\":\"main.go\"}`)
				if strings.Contains(h.requests()[3], "filler text to make it large") {
					t.Error("the compacted tool result is still in the next request")
				}
				wantPaired(t, out)
			}},
		{name: "empty compaction summary (digest)", req: "A9", script: lines(readBig, readReadme, `{}`, final),
			setup: small,
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "repair:compaction_digest", "compaction:")
				wantRequestHas(t, h, 3, "digest of the last messages", "Files mentioned: big.txt")
				wantPaired(t, out)
			}},
		{name: "compaction fails 3 times (circuit breaker)", req: "A9", script: lines(readBig, readReadme,
			`{"status":503}`, `{"status":503}`,
			`{"tool_calls":[{"id":"c3","name":"read_file","arguments":{"path":"big.txt"}}]}`,
			`{"status":503}`, final),
			setup: small,
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "warning:compaction_retry", "warning:micro_compaction", "warning:compaction_disabled")
				wantRequestHas(t, h, 4, "tool result cut to save context")
				wantPaired(t, out)
			}},
		{name: "compaction fails, strict compaction", req: "A9 A8", script: lines(readBig, readReadme, `{"status":503}`, final),
			setup: func(h *harness) { small(h); h.opts.Strict.Compaction = true },
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantFailed(t, out, agent.ErrStrict, "compaction failed")
			}},
	}
}

// panicModel is a Model that panics, as a bug in a client would.
type panicModel struct{}

func (panicModel) Stream(context.Context, *agent.Request, func(string)) (*agent.Response, error) {
	panic("nil map write in the model client")
}

// subAgentFaults run the agent tool (A10).
func subAgentFaults() []fault {
	// withAgent gives the run the agent tool that opts builds from the
	// run's own options.
	withAgent := func(opts *agent.SubAgentOptions, model agent.Model) func(h *harness) {
		return func(h *harness) {
			h.opts.Tools = h.runner(append(agent.ModePlan.Tools(false), agent.SubAgentToolName))
			parent := h.opts
			if model != nil { // a sub-agent with a model of its own
				p := *h.opts
				p.Model = model
				parent = &p
			}
			h.reg.MustRegister(agent.SubAgentTool(parent, opts))
		}
	}
	callAgent := `{"tool_calls":[{"id":"p1","name":"agent","arguments":{"task":"Find what main.go prints."}}]}`
	return []fault{
		{name: "sub-agent panics", req: "A10", script: lines(callAgent, final),
			setup: withAgent(nil, panicModel{}),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "agent=internal")
				wantEvents(t, h, "warning:subagent_failed")
				wantRequestHas(t, h, 1, "Sub-agent failed: internal error")
			}},
		{name: "sub-agent tries to start a sub-agent", req: "A10", script: lines(callAgent,
			`{"tool_calls":[{"id":"s1","name":"agent","arguments":{"task":"recurse"}}]}`,
			`{"content":"main.go prints hi (sub-agent)."}`, final),
			setup: withAgent(nil, nil),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "agent")
				sub := h.requests()[1]
				if strings.Contains(sub, `"name":"agent"`) || !strings.Contains(sub, "cannot spawn agents") {
					t.Errorf("sub-agent request offers the agent tool or lacks the ban: %.400s", sub)
				}
				refused := h.find(agent.EventToolResult, "unknown_tool")
				if len(refused) != 1 || refused[0].Depth != 1 || refused[0].Tool != "agent" {
					t.Errorf("refusal events = %+v", refused)
				}
				wantRequestHas(t, h, 3, "Sub-agent report (2 turns, 1 tool calls)", "main.go prints hi (sub-agent).")
			}},
		{name: "sub-agent hits its turn limit", req: "A10", script: lines(callAgent, readMain, readReadme, final),
			setup: withAgent(&agent.SubAgentOptions{MaxTurns: 2}, nil),
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantSteps(t, out, "agent=internal")
				wantRequestHas(t, h, 3, "Sub-agent failed: turn limit reached (2) (2 turns, 2 tool calls)")
			}},
	}
}

// readRef reads workspace files for @references and refuses others.
func readRef(root string) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, p string) ([]byte, error) {
		if !filepath.IsLocal(p) {
			return nil, fmt.Errorf("%w: %s is outside the workspace", agent.ErrPathRefused, p)
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return b, err
	}
}

// inputFaults are oversized and dangling input (A12).
func inputFaults() []fault {
	return []fault{
		{name: "@references: present, missing, outside", req: "A12", script: lines(final),
			setup: func(h *harness) {
				h.opts.ReadRef = readRef(h.root)
				h.opts.Task.Instruction = "Explain @pkg/util.go, @missing.go and @../../etc/passwd."
			},
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "input:", "warning:ref_missing", "warning:ref_refused")
				wantRequestHas(t, h, 0, "@missing.go [file not found]", "@../../etc/passwd [refused: outside the workspace]",
					"Util is useful", "@pkg/util.go:")
			}},
		{name: "input over 100,000 characters", req: "A12", script: lines(final),
			setup: func(h *harness) { h.opts.Task.Instruction = strings.Repeat("y", 150000) },
			check: func(t *testing.T, h *harness, out *agent.Outcome, _ time.Duration) {
				wantDone(t, out, "main.go prints hi.")
				wantEvents(t, h, "warning:input_cut")
				wantRequestHas(t, h, 0, "input cut at 100,000 characters: split it")
				if n := strings.Count(h.requests()[0], "y"); n > 100500 {
					t.Errorf("request has %d y's", n)
				}
			}},
	}
}

func wantDone(t *testing.T, out *agent.Outcome, summary string) {
	t.Helper()
	if out.Status != agent.StatusDone || out.Summary != summary || out.Err != nil {
		t.Errorf("outcome = %s %q %v, want done %q", out.Status, out.Summary, out.Err, summary)
	}
}

func wantFailed(t *testing.T, out *agent.Outcome, sentinel error, texts ...string) {
	t.Helper()
	if out.Status != agent.StatusFailed || !errors.Is(out.Err, sentinel) {
		t.Fatalf("outcome = %s %v, want failed with %v", out.Status, out.Err, sentinel)
	}
	for _, s := range texts {
		if !strings.Contains(out.Err.Error(), s) || !strings.Contains(out.Summary, s) {
			t.Errorf("error %q / summary %q do not mention %q", out.Err, out.Summary, s)
		}
	}
}

func wantSteps(t *testing.T, out *agent.Outcome, want ...string) {
	t.Helper()
	var got []string
	for _, s := range out.Steps {
		st := s.Tool
		if s.Code != "" {
			st += "=" + s.Code
		}
		got = append(got, st)
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps = %q, want %q", got, want)
	}
}

// wantEvents checks the retry, warning, repair, compaction and input
// events, as "kind:code", in order.
func wantEvents(t *testing.T, h *harness, want ...string) {
	t.Helper()
	got := h.kinds(agent.EventRetry, agent.EventWarning, agent.EventRepair, agent.EventCompaction, agent.EventInput)
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func wantRequestHas(t *testing.T, h *harness, n int, texts ...string) {
	t.Helper()
	reqs := h.requests()
	if n >= len(reqs) {
		t.Fatalf("only %d requests, want request %d", len(reqs), n)
	}
	for _, s := range texts {
		if !strings.Contains(reqs[n], s) {
			t.Errorf("request %d does not contain %q:\n%.2000s", n, s, reqs[n])
		}
	}
}

// wantPaired checks the final conversation against the pairing rules.
func wantPaired(t *testing.T, out *agent.Outcome) {
	t.Helper()
	if err := agent.ValidatePairing(out.Messages); err != nil {
		t.Errorf("final conversation: %v\n%s", err, agent.Diagnose(out.Messages))
	}
}

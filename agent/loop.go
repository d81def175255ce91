package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// ToolRunner is what the loop needs from the tools gateway.
type ToolRunner interface {
	// Tools are the tools offered to the model in this run.
	Tools() []*tools.Tool
	// Call runs one call through the gateway. Tool failures are results;
	// an error means ctx is done.
	Call(ctx context.Context, name, args string) (tools.Result, error)
}

// Status is how a run ended.
type Status string

// The ends of a run.
const (
	StatusDone      Status = "done"
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// ErrBudgetExhausted is the error of a run that hit its turn limit.
var ErrBudgetExhausted = errors.New("turn limit reached")

// ErrNoResponse is the error of a run whose model answered with nothing,
// twice (A2).
var ErrNoResponse = errors.New("model did not respond")

// DefaultMaxTurns bounds the model requests of one run.
const DefaultMaxTurns = 25

// RunOptions configures one agent run.
type RunOptions struct {
	Model    Model
	Tools    ToolRunner
	Mode     string // plan, review or execute
	Task     prompts.TaskData
	MaxTurns int // zero means DefaultMaxTurns
	Reporter Reporter
	Logger   *slog.Logger
}

// Step records one tool call of a run.
type Step struct {
	Turn int    `json:"turn"`
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
	Code string `json:"code,omitempty"`
}

// Outcome is the result of a run. Err is set when Status is failed or
// cancelled and wraps the sentinel that explains it.
type Outcome struct {
	Status  Status
	Summary string
	Steps   []Step
	Turns   int
	Usage   Usage
	Err     error
}

// Run drives the conversation until the model answers without tool calls,
// the turn limit is hit, the model fails, or ctx is done. It never panics on
// model output and never returns a nil Outcome.
func Run(ctx context.Context, opts *RunOptions) *Outcome {
	r := &run{opts: opts, rep: opts.Reporter, log: opts.Logger}
	if r.rep == nil {
		r.rep = ReporterFunc(func(Event) {})
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.opts.MaxTurns <= 0 {
		r.opts.MaxTurns = DefaultMaxTurns
	}
	return r.loop(ctx)
}

type run struct {
	opts *RunOptions
	rep  Reporter
	log  *slog.Logger
	out  Outcome
	msgs []Message
}

func (r *run) loop(ctx context.Context) *Outcome {
	specs, names := toolSpecs(r.opts.Tools.Tools())
	r.msgs = []Message{
		{Role: RoleSystem, Content: prompts.System(prompts.SystemData{Mode: r.opts.Mode, Tools: names})},
		{Role: RoleUser, Content: prompts.Task(r.opts.Task)},
	}
	for turn := 1; ; turn++ {
		if turn > r.opts.MaxTurns {
			return r.finish(StatusFailed, fmt.Sprintf("stopped after %d model turns without finishing", r.opts.MaxTurns),
				fmt.Errorf("%w (%d)", ErrBudgetExhausted, r.opts.MaxTurns))
		}
		r.out.Turns = turn
		r.rep.Report(Event{Kind: EventTurn, Turn: turn})
		resp, err := r.ask(ctx, &Request{Messages: r.msgs, Tools: specs}, turn)
		if err != nil {
			if ctx.Err() != nil {
				return r.finish(StatusCancelled, "cancelled", ctx.Err())
			}
			return r.finish(StatusFailed, "model request failed: "+err.Error(), err)
		}
		// A6: tool calls decide the phase, whatever finish_reason says.
		if len(resp.ToolCalls) == 0 {
			return r.finish(StatusDone, strings.TrimSpace(resp.Content), nil)
		}
		calls := fixCallIDs(resp.ToolCalls, turn)
		r.msgs = append(r.msgs, Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: calls})
		for i, c := range calls {
			r.rep.Report(Event{Kind: EventToolCall, Turn: turn, Tool: c.Name})
			res, err := r.opts.Tools.Call(ctx, c.Name, c.Arguments)
			if err != nil {
				// Cancelled mid-phase: close every open call so the history
				// stays paired, then stop.
				for _, rest := range calls[i:] {
					r.msgs = append(r.msgs, Message{Role: RoleTool, ToolCallID: rest.ID, Content: `{"code":"internal","reason":"cancelled"}`})
				}
				return r.finish(StatusCancelled, "cancelled", err)
			}
			r.out.Steps = append(r.out.Steps, Step{Turn: turn, Tool: c.Name, OK: !res.IsError, Code: string(res.Code)})
			r.rep.Report(Event{Kind: EventToolResult, Turn: turn, Tool: c.Name, Code: string(res.Code), Message: summarize(res)})
			r.msgs = append(r.msgs, Message{Role: RoleTool, ToolCallID: c.ID, Content: res.Content})
		}
	}
}

// ask sends one request; an empty answer is retried once (A2).
func (r *run) ask(ctx context.Context, req *Request, turn int) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.opts.Model.Stream(ctx, req, func(delta string) {
			r.rep.Report(Event{Kind: EventText, Turn: turn, Message: delta})
		})
		if resp != nil {
			r.out.Usage.PromptTokens += resp.Usage.PromptTokens
			r.out.Usage.CompletionTokens += resp.Usage.CompletionTokens
		}
		if err != nil {
			return nil, err
		}
		if resp != nil && (strings.TrimSpace(resp.Content) != "" || len(resp.ToolCalls) > 0) {
			return resp, nil
		}
		if attempt == 2 {
			return nil, ErrNoResponse
		}
		r.log.Warn("Empty model response, retrying", slog.Int("turn", turn))
		r.rep.Report(Event{Kind: EventRetry, Turn: turn, Message: "empty model response; retrying once"})
	}
}

func (r *run) finish(s Status, summary string, err error) *Outcome {
	r.out.Status, r.out.Summary, r.out.Err = s, summary, err
	r.rep.Report(Event{Kind: EventDone, Message: string(s)})
	return &r.out
}

func toolSpecs(ts []*tools.Tool) ([]ToolSpec, []string) {
	specs := make([]ToolSpec, 0, len(ts))
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		specs = append(specs, ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Schema})
		names = append(names, t.Name)
	}
	return specs, names
}

// fixCallIDs gives every call a non-empty ID unique within the turn, since
// some local servers send none and tool results are paired by ID.
func fixCallIDs(calls []ToolCall, turn int) []ToolCall {
	out := make([]ToolCall, len(calls))
	seen := make(map[string]bool)
	for i, c := range calls {
		if c.ID == "" || seen[c.ID] {
			c.ID = fmt.Sprintf("call_t%d_%d", turn, i)
		}
		seen[c.ID] = true
		out[i] = c
	}
	return out
}

func summarize(res tools.Result) string {
	s := res.Content
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "") + "…"
	}
	return s
}

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

// ErrRecursion is the error of a run nested deeper than sub-agents may go
// (A10): the last line of defence after the prompt, the tool list and the
// agent tool's own depth check.
var ErrRecursion = errors.New("sub-agent nesting too deep")

// Defaults of [RunOptions].
const (
	DefaultMaxTurns      = 25
	DefaultContextTokens = 32000
	// maxNesting bounds nested runs whatever the options say.
	maxNesting = 3
)

// RunOptions configures one agent run.
type RunOptions struct {
	Model    Model
	Tools    ToolRunner
	Mode     Mode // briefs the model in the system prompt; Tools decides what it can do
	Task     prompts.TaskData
	MaxTurns int // zero means DefaultMaxTurns
	Reporter Reporter
	Logger   *slog.Logger

	// History is an earlier conversation (a resumed session) placed
	// between the system prompt and the task, without system messages. It
	// is normalized like the rest before the first request.
	History []Message
	// Strict turns silent repairs into failures of the run (A8).
	Strict Strict
	// ContextTokens is the model's context window; the conversation is
	// compacted before a request that would fill more than 80 % of it (A9).
	// Zero means DefaultContextTokens; negative turns compaction off.
	ContextTokens int
	// Background marks every request of the run as background (sub-agents):
	// it fails fast when the server is overloaded (A5).
	Background bool
	// SystemPrompt replaces the system prompt rendered for Mode.
	SystemPrompt string
	// NewRunner returns a gateway over a subset of this run's tools, for
	// sub-agents started by the agent tool (see [SubAgentTool]). Nil: the
	// agent tool cannot run in this run unless it was built with one.
	NewRunner func(allowed []string) ToolRunner
	// ReadRef reads a file named by an @path reference in the instruction,
	// relative to the workspace (A12). It wraps [ErrPathRefused] for a path
	// outside the workspace and fs.ErrNotExist for a missing one. Nil: no
	// reference is inlined. The 100,000-character cut applies either way.
	ReadRef func(ctx context.Context, path string) ([]byte, error)
	// Normalizers replace [DefaultNormalizers] (tests).
	Normalizers []Normalizer
	// Journal, when set, is given the conversation at every turn boundary
	// (a session's log; see [Journal]).
	Journal Journal
}

// Step records one tool call of a run.
type Step struct {
	Turn int    `json:"turn"`
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
	Code string `json:"code,omitempty"`
	// ExitCode is a command's exit status (run_command), nil otherwise.
	ExitCode *int `json:"exitCode,omitempty"`
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
	// Incomplete is set when Summary is a partial answer: the model's
	// stream ended early twice (A4).
	Incomplete bool
	// Compactions counts the compactions of the run (A9).
	Compactions int
	// Messages is the conversation at the end, without the system prompt,
	// for a session to resume from (RunOptions.History).
	Messages []Message
}

// Run drives the conversation until the model answers without tool calls,
// the turn limit is hit, the model fails, or ctx is done. It never panics on
// model output and never returns a nil Outcome.
func Run(ctx context.Context, opts *RunOptions) *Outcome {
	o := *opts
	r := &run{opts: &o, rep: o.Reporter, log: o.Logger}
	if r.rep == nil {
		r.rep = ReporterFunc(func(Event) {})
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.ContextTokens == 0 {
		o.ContextTokens = DefaultContextTokens
	}
	if o.Normalizers == nil {
		o.Normalizers = DefaultNormalizers()
	}
	if d, nested := callerDepth(ctx); nested {
		r.depth = d + 1
	}
	switch {
	case r.depth > maxNesting:
		return r.finish(StatusFailed, "refused: sub-agents cannot start sub-agents", fmt.Errorf("%w (depth %d)", ErrRecursion, r.depth))
	case o.Model == nil:
		return r.finish(StatusFailed, "no model is configured", fmt.Errorf("%w: no model configured", ErrModelUnavailable))
	case o.Tools == nil:
		o.Tools = noTools{}
	}
	return r.loop(ctx)
}

type run struct {
	opts   *RunOptions
	rep    Reporter
	log    *slog.Logger
	depth  int
	out    Outcome
	msgs   []Message
	specs  []ToolSpec
	ids    map[string]bool // every tool-call ID in the conversation
	budget compactState
}

func (r *run) loop(ctx context.Context) *Outcome {
	r.specs = toolSpecs(r.opts.Tools.Tools())
	sys := r.opts.SystemPrompt
	if sys == "" {
		sys = prompts.System(prompts.SystemData{Brief: r.opts.Mode.Brief()})
	}
	task := r.opts.Task
	var images []Image
	task.Instruction, images = r.expandInput(ctx, task.Instruction)
	r.msgs = []Message{{Role: RoleSystem, Content: sys}}
	for _, m := range r.opts.History {
		if m.Role != RoleSystem {
			r.msgs = append(r.msgs, m)
		}
	}
	r.msgs = append(r.msgs, Message{Role: RoleUser, Content: prompts.Task(task), Images: images})
	r.checkpoint()
	toolCtx := withCaller(ctx, r.depth)
	for turn := 1; ; turn++ {
		if turn > r.opts.MaxTurns {
			return r.finish(StatusFailed, fmt.Sprintf("stopped after %d model turns without finishing", r.opts.MaxTurns),
				fmt.Errorf("%w (%d)", ErrBudgetExhausted, r.opts.MaxTurns))
		}
		r.out.Turns = turn
		r.emit(Event{Kind: EventTurn, Turn: turn})
		if err := r.prepare(ctx, turn); err != nil {
			return r.fail(ctx, err)
		}
		r.refreshTools()
		resp, err := r.ask(ctx, &Request{Messages: r.msgs, Tools: r.specs, Background: r.opts.Background}, turn)
		if err != nil {
			return r.fail(ctx, err)
		}
		// A6: tool calls decide the phase, whatever finish_reason says.
		if len(resp.ToolCalls) == 0 {
			summary := strings.TrimSpace(resp.Content)
			if resp.Incomplete {
				r.out.Incomplete = true
				summary += "\n\n[the model's answer was cut off]"
			}
			r.msgs = append(r.msgs, Message{Role: RoleAssistant, Content: resp.Content})
			return r.finish(StatusDone, summary, nil)
		}
		calls, dups := r.fixCallIDs(resp.ToolCalls, turn)
		if err := Check(dups > 0, r.opts.Strict.Pairing, ReporterFunc(r.emitReport), fmt.Sprintf("the model reused %d tool-call IDs", dups)); err != nil {
			return r.finish(StatusFailed, err.Error(), err)
		}
		calls, kept, over := r.boundCalls(calls, turn)
		r.msgs = append(r.msgs, Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: kept})
		err = r.callTools(toolCtx, calls, kept, turn)
		r.answerOver(kept, over, turn)
		if err != nil {
			return r.finish(StatusCancelled, "cancelled", err)
		}
		r.checkpoint()
	}
}

// callTools runs the tool phase of a turn, one call after the other. A
// running call always finishes (MaxTurns is checked between turns). It
// returns an error only when ctx is done, after closing every open call so
// that the history stays paired. kept is the conversation's copy of calls
// (see boundCalls).
func (r *run) callTools(ctx context.Context, calls, kept []ToolCall, turn int) error {
	for i, c := range calls {
		r.emit(Event{Kind: EventToolCall, Turn: turn, Tool: c.Name})
		res, err := r.opts.Tools.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			for _, rest := range calls[i:] {
				r.msgs = append(r.msgs, Message{Role: RoleTool, ToolCallID: rest.ID, Content: `{"code":"cancelled","reason":"the run was cancelled"}`})
			}
			return err
		}
		dropRefusedArgs(&kept[i], res)
		r.out.Steps = append(r.out.Steps, Step{Turn: turn, Tool: c.Name, OK: !res.IsError, Code: string(res.Code), ExitCode: res.ExitCode})
		explain := r.step(len(r.out.Steps), turn, &res)
		r.emit(Event{Kind: EventToolResult, Turn: turn, Tool: c.Name, Code: string(res.Code), Message: summarize(res),
			Subject: res.Subject, ExitCode: res.ExitCode, Output: outputEnds(res.Content), Files: res.Files, Explain: explain})
		r.msgs = append(r.msgs, Message{Role: RoleTool, ToolCallID: c.ID, Content: res.Content})
	}
	return nil
}

// prepare runs the normalizers and, when the context budget says so,
// compaction, before a model request.
func (r *run) prepare(ctx context.Context, turn int) error {
	if err := r.normalize(turn); err != nil {
		return err
	}
	compacted, err := r.maybeCompact(ctx, turn)
	if err != nil || !compacted {
		return err
	}
	return r.normalize(turn)
}

// normalize runs the pipeline over the conversation (A7), reports every
// repair, and applies strict mode (A8).
func (r *run) normalize(turn int) error {
	out, applied, nerr := Normalize(r.msgs, r.opts.Normalizers)
	r.msgs = out
	var errs []error
	for _, a := range applied {
		reps := make([]string, len(a.Repairs))
		for i, rp := range a.Repairs {
			reps[i] = rp.String()
		}
		r.emit(Event{Kind: EventRepair, Turn: turn, Code: a.Name, Repairs: reps, Diagnostic: a.Diagnostic,
			Message: fmt.Sprintf("repaired the conversation: %d repairs, %d → %d messages", len(reps), a.Before, a.After)})
		pairing := a.Name == NameToolResultPairing || a.Name == NameOrphanToolResultRemover
		enabled := r.opts.Strict.Normalizer
		if pairing {
			enabled = r.opts.Strict.Pairing
		}
		errs = append(errs, Check(true, enabled, ReporterFunc(r.emitReport), a.Name+": "+strings.Join(reps, ", ")))
	}
	if nerr != nil {
		r.emit(Event{Kind: EventRepair, Turn: turn, Code: "normalizer_error", Message: nerr.Error(), Diagnostic: Diagnose(r.msgs)})
		errs = append(errs, Check(true, r.opts.Strict.Normalizer, ReporterFunc(r.emitReport), nerr.Error()))
	}
	if len(applied) > 0 {
		r.budget.lastPrompt = 0 // the reported usage no longer matches the messages
	}
	r.rememberIDs()
	for _, err := range errs {
		if err != nil {
			return err // the first violation ends a strict run; the events say the rest
		}
	}
	return nil
}

// noTools is the runner of a run without tools.
type noTools struct{}

func (noTools) Tools() []*tools.Tool { return nil }
func (noTools) Call(context.Context, string, string) (tools.Result, error) {
	return tools.Fail(tools.CodeUnknownTool, "", "there are no tools in this run", "answer without tools"), nil
}

func (r *run) rememberIDs() {
	r.ids = map[string]bool{}
	for _, m := range r.msgs {
		for _, c := range m.ToolCalls {
			r.ids[c.ID] = true
		}
	}
}

// fail ends the run after an error of the model or of a repair point.
func (r *run) fail(ctx context.Context, err error) *Outcome {
	switch {
	case ctx.Err() != nil:
		return r.finish(StatusCancelled, "cancelled", ctx.Err())
	case errors.Is(err, ErrStrict):
		return r.finish(StatusFailed, "stopped by strict mode: "+err.Error(), err)
	}
	return r.finish(StatusFailed, "model request failed: "+err.Error(), err)
}

func (r *run) finish(s Status, summary string, err error) *Outcome {
	r.out.Status, r.out.Summary, r.out.Err = s, summary, err
	if len(r.msgs) > 1 {
		r.out.Messages = append([]Message(nil), r.msgs[1:]...)
	}
	r.checkpoint()
	level := LevelInfo
	if s == StatusFailed {
		level = LevelError
	}
	attrs := []slog.Attr{slog.Int("turns", r.out.Turns)}
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	r.emit(Event{Kind: EventDone, Level: level, Message: string(s)}, attrs...)
	return &r.out
}

// toolSpecs is what the model is told about the offered tools: each
// tool's name, description and [tools.ModelSchema], its schema without the
// limits the gateway enforces (issue 16). The tool list is not repeated in
// the system prompt.
// refreshTools offers the model the tools the runner still has: a tool
// that went away during the run (an MCP server removed after crashing
// again) is not in the next request (issue 25). The specs are rebuilt
// only when the set changed.
func (r *run) refreshTools() {
	ts := r.opts.Tools.Tools()
	same := len(ts) == len(r.specs)
	for i := 0; same && i < len(ts); i++ {
		same = ts[i].Name == r.specs[i].Name
	}
	if !same {
		r.specs = toolSpecs(ts)
	}
}

func toolSpecs(ts []*tools.Tool) []ToolSpec {
	specs := make([]ToolSpec, 0, len(ts))
	for _, t := range ts {
		specs = append(specs, ToolSpec{Name: t.Name, Description: t.Description, Parameters: tools.ModelSchema(t.Schema)})
	}
	return specs
}

// fixCallIDs gives every call a non-empty ID unique in the whole
// conversation: some local servers send none, others count from call_0 in
// every answer, and tool results are paired by ID.
// It returns the calls and how many reused IDs were renamed (a pairing
// repair for strict mode).
func (r *run) fixCallIDs(calls []ToolCall, turn int) ([]ToolCall, int) {
	out := make([]ToolCall, len(calls))
	var renamed []string
	for i, c := range calls {
		if c.ID == "" || r.ids[c.ID] {
			old := c.ID
			for n := 0; c.ID == "" || r.ids[c.ID]; n++ {
				c.ID = fmt.Sprintf("call_t%d_%d", turn, i+n*len(calls))
			}
			if old != "" {
				renamed = append(renamed, "duplicate_tool_use:"+safeID(old)+"→"+c.ID)
			}
		}
		r.ids[c.ID] = true
		out[i] = c
	}
	if len(renamed) > 0 {
		r.emit(Event{Kind: EventRepair, Level: LevelInfo, Turn: turn, Code: "tool_call_ids", Repairs: renamed,
			Message: fmt.Sprintf("the model reused %d tool-call IDs; renamed", len(renamed))})
	}
	return out, len(renamed)
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

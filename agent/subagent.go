package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// SubAgentToolName is the name of the tool that starts a sub-agent (B7).
const SubAgentToolName = "agent"

// DefaultSubAgentTurns is the hard turn limit of a sub-agent.
const DefaultSubAgentTurns = 10

// SubAgentOptions configures the agent tool. The zero value is usable.
type SubAgentOptions struct {
	// Tools are the tools a sub-agent may be given; nil means the plan
	// tools (ModePlan.Tools). "agent" is always removed, and a sub-agent
	// never gets a tool its parent run does not have.
	Tools []string
	// MaxTurns is each sub-agent's hard turn limit; zero means
	// DefaultSubAgentTurns. A tool call in progress finishes first.
	MaxTurns int
	// MaxDepth is how deep runs may nest; zero means 1: the user's run may
	// start sub-agents, sub-agents may not.
	MaxDepth int
}

// SubAgentTool returns the agent tool of one run (A10, B7): it runs a
// nested agent on a task with a subset of the tools and returns its final
// answer as the tool result. Defences against recursion, in three layers:
// the sub-agent's prompt says it cannot spawn agents, its tool list has no
// agent tool, and a depth check at run time refuses to start a sub-agent
// from a sub-agent anyway. Its requests are background requests (they fail
// fast when the server is overloaded). A panic or a failure of the
// sub-agent comes back as the error result "Sub-agent failed: <summary>";
// only the parent's cancellation is a Go error.
//
// parent is the options of the run the tool belongs to, so build one tool
// per run. It is read when the tool is called, which lets the tool be one
// of parent.Tools: a sub-agent uses parent.Model, gets its tools from
// parent.NewRunner (a subset of parent.Tools), and inherits parent's Mode,
// Strict, ContextTokens, Logger and Reporter (which receives the
// sub-agent's events). Without a Model or a NewRunner the tool answers
// that sub-agents are not available.
func SubAgentTool(parent *RunOptions, opts *SubAgentOptions) *tools.Tool {
	a := &subAgent{parent: parent}
	if a.parent == nil {
		a.parent = &RunOptions{}
	}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Tools == nil {
		a.opts.Tools = ModePlan.Tools(false)
	}
	if a.opts.MaxTurns <= 0 {
		a.opts.MaxTurns = DefaultSubAgentTurns
	}
	if a.opts.MaxDepth <= 0 {
		a.opts.MaxDepth = 1
	}
	return &tools.Tool{
		Name: SubAgentToolName,
		Description: fmt.Sprintf("Delegate a self-contained task (e.g. reading many files) to a sub-agent and get its report. "+
			"It gets some of your tools (default %s), cannot start agents, stops after %d turns. Say what to report.",
			strings.Join(a.opts.Tools, ", "), a.opts.MaxTurns),
		Risk: tools.RiskNone,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["task"],
	"properties": {
		"task": {"type": "string", "minLength": 1, "maxLength": 20000},
		"tools": {"type": "array", "maxItems": 16, "uniqueItems": true,
			"items": {"type": "string", "pattern": "^[a-z0-9_]{1,64}$"}}
	}
}`),
		Run: a.run,
	}
}

// subAgent is the agent tool of one run.
type subAgent struct {
	parent *RunOptions
	opts   SubAgentOptions
}

// caller is the side of the parent run a sub-agent reports to.
type caller struct {
	depth int
	rep   Reporter
	log   *slog.Logger
}

func (a *subAgent) caller(ctx context.Context) *caller {
	c := &caller{rep: a.parent.Reporter, log: a.parent.Logger}
	c.depth, _ = callerDepth(ctx) // outside a run: called as the user's run would
	if c.rep == nil {
		c.rep = ReporterFunc(func(Event) {})
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

type subAgentArgs struct {
	Task  string   `json:"task"`
	Tools []string `json:"tools"`
}

// failed is the result of a sub-agent that did not finish.
func failed(summary string) tools.Result {
	return tools.Result{Content: "Sub-agent failed: " + summary, IsError: true, Code: tools.CodeInternal}
}

func (a *subAgent) run(ctx context.Context, _ *tools.Env, raw json.RawMessage) (res tools.Result, err error) {
	parent := a.caller(ctx)
	ctx = withCaller(ctx, parent.depth) // the sub-agent runs one level below
	defer func() {
		if p := recover(); p != nil {
			parent.log.Error("Sub-agent panic", slog.String("panic", clip(fmt.Sprint(p), 300)), slog.String("stack", string(debug.Stack())))
			res, err = a.report(parent, failed(fmt.Sprintf("internal error (%s)", clip(fmt.Sprint(p), 200)))), nil
		}
	}()
	var args subAgentArgs
	if err := json.Unmarshal(raw, &args); err != nil || strings.TrimSpace(args.Task) == "" {
		return tools.Fail(tools.CodeInvalidArgs, "task", "a task is required", "call again with a task"), nil
	}
	// Fallback layer: whatever the prompt and the tool list said, a
	// sub-agent does not start sub-agents.
	if parent.depth+1 > a.opts.MaxDepth {
		parent.log.Warn("Sub-agent refused", slog.Int("depth", parent.depth))
		return tools.Fail(tools.CodePolicyDenied, "", "sub-agents cannot start sub-agents",
			"do the task yourself with your own tools"), nil
	}
	model, newRunner := a.parent.Model, a.parent.NewRunner
	if model == nil || newRunner == nil {
		return tools.Fail(tools.CodeUnavailable, "", "sub-agents are not available in this run", "do the task yourself"), nil
	}
	allowed, missing := a.allowed(args.Tools)
	if len(allowed) == 0 {
		return tools.Fail(tools.CodeInvalidArgs, "tools", "none of these tools can be given to a sub-agent",
			"leave tools out, or use some of: "+strings.Join(a.base(), ", ")), nil
	}
	runner := withoutAgent{newRunner(allowed)}
	readOnly := true
	for _, t := range runner.Tools() {
		readOnly = readOnly && (t.Risk == tools.RiskRead || t.Risk == tools.RiskNone)
	}
	forward := ReporterFunc(func(e Event) {
		if e.Kind != EventText && e.Kind != EventDone {
			parent.rep.Report(e)
		}
	})
	out := Run(ctx, &RunOptions{
		Model: model, Tools: runner, Mode: a.parent.Mode, Task: prompts.TaskData{Instruction: args.Task},
		MaxTurns: a.opts.MaxTurns, Reporter: forward, Logger: parent.log,
		Strict: a.parent.Strict, ContextTokens: a.parent.ContextTokens, Background: true,
		SystemPrompt: prompts.SubAgent(prompts.SubAgentData{MaxTurns: a.opts.MaxTurns, ReadOnly: readOnly}),
	})
	if errors.Is(ctx.Err(), context.Canceled) {
		return tools.Fail(tools.CodeInternal, "", "cancelled", ""), ctx.Err()
	}
	head := fmt.Sprintf("(%d turns, %d tool calls", out.Turns, len(out.Steps))
	if len(missing) > 0 {
		head += "; not available to sub-agents: " + strings.Join(missing, ", ")
	}
	head += ")"
	if out.Status != StatusDone {
		why := "unknown error"
		if out.Err != nil {
			why = out.Err.Error()
		}
		return a.report(parent, failed(why+" "+head)), nil
	}
	return tools.Result{Content: "Sub-agent report " + head + ":\n" + out.Summary}, nil
}

// report tells the parent's observer that a sub-agent failed.
func (a *subAgent) report(parent *caller, res tools.Result) tools.Result {
	parent.rep.Report(Event{Kind: EventWarning, Level: LevelWarning, Tool: SubAgentToolName, Code: "subagent_failed",
		Message: clip(res.Content, 300), Depth: parent.depth})
	parent.log.Warn("Sub-agent failed", slog.String("detail", clip(res.Content, 300)))
	return res
}

// base is the tools any sub-agent of this parent may get.
func (a *subAgent) base() []string {
	var have []string
	if a.parent.Tools != nil {
		for _, t := range a.parent.Tools.Tools() {
			have = append(have, t.Name)
		}
	}
	var out []string
	for _, n := range a.opts.Tools {
		if n != SubAgentToolName && (a.parent.Tools == nil || slices.Contains(have, n)) {
			out = append(out, n)
		}
	}
	return out
}

// allowed is the requested tools that may be given (all of base when none
// were requested) and the requested ones that may not.
func (a *subAgent) allowed(requested []string) (allowed, missing []string) {
	base := a.base()
	if len(requested) == 0 {
		return base, nil
	}
	for _, n := range requested {
		if slices.Contains(base, n) {
			allowed = append(allowed, n)
		} else {
			missing = append(missing, n)
		}
	}
	return allowed, missing
}

// withoutAgent is the parameter layer of A10: a gateway whose tool list
// has no agent tool, and which refuses a call to it.
type withoutAgent struct{ ToolRunner }

func (w withoutAgent) Tools() []*tools.Tool {
	var out []*tools.Tool
	for _, t := range w.ToolRunner.Tools() {
		if t.Name != SubAgentToolName {
			out = append(out, t)
		}
	}
	return out
}

func (w withoutAgent) Call(ctx context.Context, name, args string) (tools.Result, error) {
	if name == SubAgentToolName {
		return tools.Fail(tools.CodeUnknownTool, "", "there is no agent tool here: sub-agents cannot start sub-agents",
			"do the task yourself with your own tools"), nil
	}
	return w.ToolRunner.Call(ctx, name, args)
}

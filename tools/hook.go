package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// HookCall is one tool call as the user's hooks see it (A13).
type HookCall struct {
	SessionID string
	Tool      string
	// Input is the call's arguments object after parsing (T1): what the
	// tool will get, or got.
	Input json.RawMessage
	// Subject is the normalized thing the call touches ([Verdict.Subject]).
	Subject string
	// Cwd is the workspace root.
	Cwd string
}

// HookVerdict is what the hooks of one event say about a call.
type HookVerdict struct {
	// Block refuses the call (PreToolUse) or withholds its result
	// (PostToolUse); Reason then tells the model why.
	Block  bool
	Reason string
	// Rule names the hook that decided, for the audit log; never sent to
	// the model.
	Rule string
	// UpdatedInput, from PreToolUse, replaces the call's arguments; the
	// call then passes the whole gateway again, hooks included.
	UpdatedInput json.RawMessage
	// Feedback, from PostToolUse, is text for the model appended to the
	// result.
	Feedback string
}

// Hooks runs the user's hook commands around tool calls (A13). The gateway
// calls PreToolUse after its policy step, before approval, for every call
// the policy did not deny, and PostToolUse after a call ran, with the
// checked result. Implementations decide failing open (observer hooks) or
// closed (policy hooks) themselves and put it in the verdict: there is no
// error to ignore. Both block until the hooks are done or ctx is; they
// must be safe for concurrent use.
type Hooks interface {
	PreToolUse(ctx context.Context, c *HookCall) HookVerdict
	PostToolUse(ctx context.Context, c *HookCall, res *Result) HookVerdict
}

// maxHookRewrites bounds how often PreToolUse hooks may rewrite one call,
// so two hooks undoing each other cannot loop.
const maxHookRewrites = 3

// preHooks runs the PreToolUse hooks on a call the policy let through: a
// block becomes the call's refusal, rewritten input is prepared again from
// the start (T1-T5), and hooks see the rewrite too.
func (r *Gateway) preHooks(ctx context.Context, name string, p prepared) prepared {
	if r.opts.Hooks == nil {
		return p
	}
	for rewrites := 0; p.refusal == nil; rewrites++ {
		v := r.opts.Hooks.PreToolUse(ctx, r.hookCall(name, &p))
		switch {
		case v.Block:
			reason := "blocked by the user's PreToolUse hook"
			if v.Reason != "" {
				reason += ": " + v.Reason
			}
			return refused(p.tool, &ToolError{Code: CodePolicyDenied, Reason: reason, Rule: hookRule("PreToolUse", v.Rule),
				Subject: p.verdict.Subject, Recovery: "do not retry this call unchanged; follow the hook's reason or ask the user"})
		case v.UpdatedInput == nil:
			return p
		case rewrites == maxHookRewrites:
			return refused(p.tool, &ToolError{Code: CodePolicyDenied, Reason: "the user's hooks kept rewriting this call",
				Rule: hookRule("PreToolUse", v.Rule), Subject: p.verdict.Subject})
		}
		r.log.Info("Hook rewrote the call", slog.String("tool", name), slog.String("hook", v.Rule))
		p = r.prepare(ctx, name, string(v.UpdatedInput))
	}
	return p
}

// postHooks runs the PostToolUse hooks on the checked result of a call
// that ran.
func (r *Gateway) postHooks(ctx context.Context, name string, p prepared, res Result) Result {
	if r.opts.Hooks == nil {
		return res
	}
	v := r.opts.Hooks.PostToolUse(ctx, r.hookCall(name, &p), &res)
	switch {
	case v.Block:
		return (&ToolError{Code: CodePolicyDenied, Reason: "the result was withheld by the user's PostToolUse hook: " + v.Reason,
			Recovery: "do not retry this call unchanged; follow the hook's reason or ask the user"}).Result()
	case v.Feedback != "":
		res.Content += "\n[PostToolUse hook: " + v.Feedback + "]"
	default:
		return res
	}
	return checkResult(res, r.env.Root)
}

func (r *Gateway) hookCall(name string, p *prepared) *HookCall {
	return &HookCall{SessionID: r.opts.SessionID, Tool: name, Input: p.args, Subject: p.verdict.Subject, Cwd: r.env.Root}
}

func hookRule(event, hook string) string {
	if hook == "" {
		return "hook: " + event
	}
	return fmt.Sprintf("hook: %s %s", event, hook)
}

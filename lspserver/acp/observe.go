package acp

import (
	"context"

	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/tools"
)

// observed is a place's extensions as a run gets them: the same hooks,
// MCP tools and protected command lines, with one step added to the
// hooks: before each call is asked about or runs (the gateway's
// PreToolUse step, after its checks), the run's progress learns what it
// acts on, for the tool call's title and locations. The step never
// blocks or changes a call.
type observed struct{ inner agentrun.Extensions }

var _ agentrun.Extensions = observed{}

func (o observed) Hooks() tools.Hooks {
	var h tools.Hooks
	if o.inner != nil {
		h = o.inner.Hooks()
	}
	return observer{inner: h}
}

func (o observed) Tools() []*tools.Tool {
	if o.inner == nil {
		return nil
	}
	return o.inner.Tools()
}

func (o observed) Runs() []string {
	if o.inner == nil {
		return nil
	}
	return o.inner.Runs()
}

func (o observed) SessionStart(ctx context.Context, sessionID, cwd string) {
	if o.inner != nil {
		o.inner.SessionStart(ctx, sessionID, cwd)
	}
}

func (o observed) Stop(ctx context.Context, sessionID, cwd, status string) {
	if o.inner != nil {
		o.inner.Stop(ctx, sessionID, cwd, status)
	}
}

// Close does nothing: the place closes its extensions.
func (o observed) Close() error { return nil }

type observer struct{ inner tools.Hooks }

func (ob observer) PreToolUse(ctx context.Context, c *tools.HookCall) tools.HookVerdict {
	if p := progressFrom(ctx); p != nil {
		p.pre(c)
	}
	if ob.inner == nil {
		return tools.HookVerdict{}
	}
	return ob.inner.PreToolUse(ctx, c)
}

func (ob observer) PostToolUse(ctx context.Context, c *tools.HookCall, res *tools.Result) tools.HookVerdict {
	if ob.inner == nil {
		return tools.HookVerdict{}
	}
	return ob.inner.PostToolUse(ctx, c, res)
}

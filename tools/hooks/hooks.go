// Package hooks runs the user's hook commands at PreToolUse, PostToolUse,
// SessionStart and Stop (A13), configured in Claude Code's shape
// ([Config]). A hook gets a JSON description of the event on stdin; exit 0
// continues (stdout may carry a JSON verdict), exit 2 blocks with stderr as
// the reason the model reads.
//
// Observer hooks are enhancements and fail open: a missing command is
// skipped with a warning, output that is not JSON is logged as text, a
// hook past its timeout (30 s by default) has its process group killed and
// the call goes on. Policy hooks ("policy": true, or Claude Code's
// "onFailure": "block") fail closed: when their verdict cannot be had —
// missing, crashed, timed out, an unexpected exit status, garbage — the
// call is denied.
//
// Hooks run outside the sandbox: they are the user's own commands from the
// user's config (a project's only once the user trusted them), run with
// the scrubbed environment of [exec.HostEnv] in the workspace root. [Set]
// implements [tools.Hooks] for the gateway; it must not import agent or
// lspserver.
package hooks

import (
	"context"
	"log/slog"
	"os"
	"slices"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// Options configures a [Set].
type Options struct {
	// User are the hooks of the user's config; Project those of the
	// project that the user trusted (the caller checks the trust).
	User, Project Config
	// Environ is the environment hooks are built from, os.Environ() when
	// nil; it is scrubbed by [exec.HostEnv].
	Environ []string
	// Verify, when set, is asked before each run of a project hook: an
	// error means the hook does not run — an observer is skipped, a
	// policy hook denies — and says why (what it runs changed since the
	// user trusted it, A18).
	Verify func(ev Event, g *Group, c *Command) error
	Logger *slog.Logger
	// Warn, when set, is told in a sentence for the user about every hook
	// that failed while it ran (the call went on, or, for a policy hook,
	// was denied), with the context of the call it ran for.
	Warn func(ctx context.Context, msg string)
}

// Set is the hooks of one workspace. It is safe for concurrent use.
type Set struct {
	hooks    []*hook
	env      []string
	log      *slog.Logger
	warn     func(ctx context.Context, msg string)
	warnings []string
}

// New compiles the hooks of o. Entries that cannot run are skipped with a
// warning ([Set.Warnings]), except broken policy hooks, which deny.
func New(o *Options) *Set {
	if o == nil {
		o = &Options{}
	}
	s := &Set{log: o.Logger, warn: o.Warn}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	s.env = exec.HostEnv(environ)
	for _, src := range []struct {
		cfg  Config
		name string
	}{{o.User, "user"}, {o.Project, "project"}} {
		hs, warnings := compile(src.cfg, src.name)
		if src.name == "project" && o.Verify != nil {
			for _, h := range hs {
				h.verify = func() error { return o.Verify(h.event, &h.group, &h.command) }
			}
		}
		s.hooks = append(s.hooks, hs...)
		s.warnings = append(s.warnings, warnings...)
	}
	// Deterministic order: events are a map in the config.
	slices.SortStableFunc(s.hooks, func(a, b *hook) int { return cmpSource(a.source, b.source) })
	for _, w := range s.warnings {
		s.log.Warn("Hook skipped", slog.String("why", w))
	}
	return s
}

func cmpSource(a, b string) int {
	if a == b {
		return 0
	}
	if a == "user" {
		return -1
	}
	return 1
}

// Warnings lists the configured hooks that were skipped or broken.
func (s *Set) Warnings() []string { return slices.Clone(s.warnings) }

// Len is the number of hooks in s.
func (s *Set) Len() int { return len(s.hooks) }

var _ tools.Hooks = (*Set)(nil)

// PreToolUse runs the PreToolUse hooks matching c.Tool, in order, until one
// blocks or rewrites the input.
func (s *Set) PreToolUse(ctx context.Context, c *tools.HookCall) tools.HookVerdict {
	return s.toolEvent(ctx, PreToolUse, c, nil)
}

// PostToolUse runs the PostToolUse hooks matching c.Tool on res.
func (s *Set) PostToolUse(ctx context.Context, c *tools.HookCall, res *tools.Result) tools.HookVerdict {
	return s.toolEvent(ctx, PostToolUse, c, res)
}

// SessionStart runs the SessionStart hooks of a run; they only observe.
func (s *Set) SessionStart(ctx context.Context, sessionID, cwd string) {
	s.observe(ctx, SessionStart, &input{SessionID: sessionID, Cwd: cwd, Source: "startup"})
}

// Stop runs the Stop hooks when a run ends with status; they only observe.
func (s *Set) Stop(ctx context.Context, sessionID, cwd, status string) {
	s.observe(ctx, Stop, &input{SessionID: sessionID, Cwd: cwd, Status: status})
}

func (s *Set) toolEvent(ctx context.Context, ev Event, c *tools.HookCall, res *tools.Result) tools.HookVerdict {
	in := &input{SessionID: c.SessionID, Cwd: c.Cwd, ToolName: c.Tool, ToolInput: c.Input, Subject: c.Subject}
	if res != nil {
		in.ToolResponse = &response{Content: res.Content, IsError: res.IsError, Code: string(res.Code)}
	}
	var out tools.HookVerdict
	for _, h := range s.hooks {
		if h.event != ev || !h.match(c.Tool) {
			continue
		}
		v := s.runOne(ctx, h, in)
		if v.Block || v.UpdatedInput != nil {
			return v
		}
		if v.Feedback != "" {
			if out.Feedback != "" {
				out.Feedback += "\n"
			}
			out.Feedback += v.Feedback
		}
	}
	return out
}

// observe runs the hooks of an event that has no call to decide on.
func (s *Set) observe(ctx context.Context, ev Event, in *input) {
	for _, h := range s.hooks {
		if h.event == ev {
			s.runOne(ctx, h, in)
		}
	}
}

package lspserver

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/sandbox"
)

// Warnings the user should see (issue 26 item 6): a hook that failed, an
// MCP server that did not start or whose tools were removed, a session
// recovered from a damaged log, a save the editor did not answer. Each
// reaches the editor once as a window/logMessage warning (the headless
// client prints those), as a window/showMessage when it needs the user's
// attention, and as a line in the agentls/runEvent view of the run it
// happened in — the run whose context it came with, or, for what happened
// outside any run (a server that failed to start in the background),
// every run under way.

// runKey is the context key of a run's [runState] (see trackRun).
type runKey struct{}

// warnUser tells the user msg; show asks for attention (showMessage).
// The text may quote a config file, a server's stderr or a path: its
// control characters are made visible (T22).
func (s *Server) warnUser(ctx context.Context, msg string, show bool) {
	msg = sandbox.VisibleText(strings.TrimPrefix(msg, "agentls: "))
	for _, ev := range s.warnEvents(ctx) {
		ev.warning(msg)
	}
	s.logMessage(ctx, protocol.MessageTypeWarning, "agentls: "+msg)
	if show {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: "+msg)
	}
}

// warnEvents are the run views a warning given with ctx belongs to.
func (s *Server) warnEvents(ctx context.Context) []*runEvents {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		if rs.events == nil {
			return nil
		}
		return []*runEvents{rs.events}
	}
	var out []*runEvents
	for _, rs := range s.runs {
		if rs.events != nil {
			out = append(out, rs.events)
		}
	}
	return out
}

// setRunEvents records the run view of the run whose context ctx is.
func (s *Server) setRunEvents(ctx context.Context, ev *runEvents) {
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		s.mu.Lock()
		rs.events = ev
		s.mu.Unlock()
	}
}

// warning adds a warning line to the run's view.
func (r *runEvents) warning(msg string) {
	r.report(agent.Event{Kind: agent.EventWarning, Level: agent.LevelWarning, Message: msg})
}

package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
)

// ticketKey is the context key of the place a command took in its
// session's line.
type ticketKey struct{}

// reservedTicket is a session ticket taken on the read loop.
type reservedTicket struct {
	session string
	ticket  *session.Ticket
}

// reserveTurn runs on the read loop, before a call goes async: a command
// that continues a session takes its place in the session's line here, in
// wire order, so that commands on one session run in the order they came
// (A11) although each then runs on its own goroutine. The returned
// function, called when the handler returns, gives the place up unless
// the run began with it, and releases the session.
func (s *Server) reserveTurn(ctx context.Context, method string, params jsonrpc2.RawMessage) (context.Context, func()) {
	nothing := func() {}
	if method != "workspace/executeCommand" {
		return ctx, nothing
	}
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Arguments) != 1 {
		return ctx, nothing
	}
	var a struct {
		SessionID string `json:"sessionId"`
	}
	if _, ok := commandModes[p.Command]; !ok || json.Unmarshal(p.Arguments[0], &a) != nil || a.SessionID == "" {
		return ctx, nothing
	}
	s.mu.Lock()
	ready := s.state == stateInitialized
	s.mu.Unlock()
	if !ready {
		return ctx, nothing
	}
	// An unknown session is the command's own error, later.
	sess, err := s.sessions(ctx).Session(a.SessionID)
	if err != nil {
		return ctx, nothing
	}
	t := &reservedTicket{session: sess.ID, ticket: sess.Reserve()}
	return context.WithValue(ctx, ticketKey{}, t), func() {
		t.ticket.Cancel()
		sess.Release() // the handler is done with it: its run has ended
	}
}

// beginRun begins a run in sess at the place its command took on the read
// loop, or at the end of the line.
func beginRun(ctx context.Context, sess *session.Session, mode agent.Mode, instruction string) (*session.Run, error) {
	if t, ok := ctx.Value(ticketKey{}).(*reservedTicket); ok && t.session == sess.ID {
		return t.ticket.Begin(ctx, mode, instruction)
	}
	return sess.Begin(ctx, mode, instruction)
}

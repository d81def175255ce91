package lspserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/command"
)

// sessions returns the session store of the workspace, opened at first
// use: under Options.StateDir, or in memory when there is none or it
// cannot be used (said once). Its warnings (a session not saved, a damaged
// one recovered) need the user's attention: they go to the client as
// window/logMessage and window/showMessage warnings, and to the views of
// the runs under way (warn.go; the run of a recovered session says it in
// its own view too, see frontEnd.Begin).
func (s *Server) sessions(ctx context.Context) *session.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store
	}
	opts := &session.Options{Logger: s.log, Limits: s.opts.SessionLimits, Warn: func(msg string) {
		s.warnUser(s.connCtx, msg, true)
	}}
	st, err := session.Open(s.opts.StateDir, s.root, opts)
	if err != nil {
		s.log.Warn("Sessions kept in memory", slog.String("err", err.Error()))
		s.logMessage(ctx, protocol.MessageTypeWarning, "agentls: sessions are not saved: "+err.Error())
		st, _ = session.Open("", s.root, opts)
	}
	s.store = st
	return st
}

// findSession returns the session a command continues, nil for a new one,
// with a reference the caller releases once the run has ended (the last
// reference closes the session's log: a server that runs for days keeps
// no session it is not using, issue 26). An unknown ID is the command's
// error.
func (s *Server) findSession(ctx context.Context, id string) (*session.Session, error) {
	if id == "" {
		return nil, nil
	}
	sess, err := s.sessions(ctx).Session(id)
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrAmbiguous):
		return nil, failf(ReasonSessionNotFound, err.Error())
	case err != nil:
		return nil, failf(ReasonInternal, err.Error())
	}
	return sess, nil
}

// instructionFor is the instruction of a command: its own, or the mode's
// default, or, for an execute that continues a session, "carry out the
// plan above" (A16: execute this plan).
func instructionFor(mode agent.Mode, a *command.Args) (string, error) {
	if a.Instruction != "" {
		return a.Instruction, nil
	}
	if d := mode.DefaultInstruction(); d != "" {
		return d, nil
	}
	if mode == agent.ModeExecute && a.SessionID != "" {
		return command.ExecutePlanInstruction, nil
	}
	return "", fmt.Errorf("instruction is required")
}

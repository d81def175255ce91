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
// one recovered) go to the client as window/logMessage warnings.
func (s *Server) sessions(ctx context.Context) *session.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store
	}
	opts := &session.Options{Logger: s.log, Limits: s.opts.SessionLimits, Warn: func(msg string) {
		s.logMessage(context.WithoutCancel(ctx), protocol.MessageTypeWarning, msg)
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

// findSession returns the session a command continues, nil for a new one.
// An unknown ID is the command's error.
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

// beginSession makes r a run of sess (a new session when nil): it waits
// for the session's earlier runs to end, then gives the run the session's
// conversation as history and the session as its journal. The caller ends
// the returned run with [endSession].
func (s *Server) beginSession(ctx context.Context, r *run, sess *session.Session, instruction string) (*session.Run, error) {
	if sess == nil {
		var err error
		if sess, err = s.sessions(ctx).New(); err != nil {
			s.log.Warn("No session", slog.String("err", err.Error()))
			return nil, failf(ReasonInternal, "cannot start a session: "+err.Error())
		}
	}
	sr, err := beginRun(ctx, sess, r.mode, instruction)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failf(ReasonInternal, err.Error())
	}
	r.id, r.runID, r.srun = sess.ID, sr.ID, sr
	r.log = r.log.With(slog.String("session", sess.ID), slog.String("run", sr.ID))
	r.opts.Logger = r.log
	r.opts.History = sr.History()
	r.opts.Journal = sr
	if n := len(r.opts.History); n > 0 {
		r.log.Info("Session continued", slog.Int("messages", n))
	}
	return sr, nil
}

// endSession records the end of the run in its session.
func endSession(sr *session.Run, out *agent.Outcome) {
	if out == nil {
		sr.End(agent.StatusFailed, 0, "the run did not start")
		return
	}
	sr.End(out.Status, out.Turns, out.Summary)
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

package lspserver

import (
	"context"
	"errors"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// runState is one running run, under its session's ID.
type runState struct {
	id     string
	cancel context.CancelFunc
	events *runEvents // its run view, once it began; guarded by Server.mu
}

// runAgent runs one plan, review or execute command: the run is built
// whole, handed to the agent loop, and its outcome becomes the command
// result.
func (s *Server) runAgent(ctx context.Context, mode agent.Mode, a *command.Args) (*command.Result, error) {
	sess, err := s.findSession(ctx, a.SessionID)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		defer sess.Release() // after the run's end below
	}
	r, err := s.newRun(ctx, runRequest{mode: mode, args: a, sess: sess})
	if err != nil {
		return nil, err
	}
	defer r.close()
	out := r.ar.Execute()
	res := r.finish(ctx, out)
	r.ar.End(out)
	if err := outcomeError(ctx, out); err != nil {
		return nil, err
	}
	return res, nil
}

// outcomeError is the wire error of a run that has no result: the
// request's own cancellation (-32800) or a model failure (RequestFailed
// with a reason). A run that hit its turn limit still has a result.
func outcomeError(ctx context.Context, out *agent.Outcome) error {
	switch {
	case out.Status == agent.StatusCancelled && ctx.Err() != nil:
		return ctx.Err()
	case out.Status == agent.StatusFailed && out.Err != nil && !errors.Is(out.Err, agent.ErrBudgetExhausted):
		return out.Err
	}
	return nil
}

// trackRun registers the run for agentls.cancel and returns its context
// and the function that ends it.
func (s *Server) trackRun(ctx context.Context, id string) (context.Context, func()) {
	rctx, cancel := context.WithCancel(ctx)
	rs := &runState{id: id, cancel: cancel}
	rctx = context.WithValue(rctx, runKey{}, rs) // where its warnings go (warn.go)
	s.mu.Lock()
	s.runs[id] = rs
	s.mu.Unlock()
	return rctx, func() {
		s.mu.Lock()
		delete(s.runs, id)
		s.mu.Unlock()
		cancel()
	}
}

// cancelRun cancels the running run of the session with the given ID (a
// session runs one run at a time).
func (s *Server) cancelRun(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	if ok {
		r.cancel()
	}
	return ok
}

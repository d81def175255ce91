package lspserver

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// runState is one running agent session.
type runState struct {
	id     string
	cancel context.CancelFunc
}

// runAgent runs one plan, review or execute command: the run is resolved
// once, equipped with its gateway, handed to the agent loop, and its
// outcome becomes the command result.
func (s *Server) runAgent(ctx context.Context, mode agent.Mode, a *command.Args) (*command.Result, error) {
	sess, err := s.findSession(ctx, a.SessionID)
	if err != nil {
		return nil, err
	}
	r, err := s.prepareRun(ctx, mode, a)
	if err != nil {
		return nil, err
	}
	defer r.close()
	// Runs of one session take turns from here (A11).
	sr, err := s.beginSession(ctx, r, sess, a.Instruction)
	if err != nil {
		return nil, err
	}
	var out *agent.Outcome
	defer func() { endSession(sr, out) }()
	r.ext = s.extensions(ctx)
	if err := s.equip(r); err != nil {
		return nil, err
	}
	rctx, untrack := s.trackRun(ctx, r.id)
	defer untrack()
	r.log.Info("Run started", slog.String("target", r.rel))
	events := s.newRunEvents(rctx, r.id)
	events.started(mode, "agentls "+mode.String()+" "+r.rel)
	prog := s.beginProgress(rctx, r.id, "agentls "+mode.String())
	prog.events = events
	r.opts.Reporter = prog
	if r.ext != nil {
		r.ext.SessionStart(rctx, r.id, s.root)
	}
	out = agent.Run(rctx, r.opts)
	if r.ext != nil {
		r.ext.Stop(context.WithoutCancel(rctx), r.id, s.root, string(out.Status))
	}
	if c, ok := r.opts.Model.(idleCloser); ok {
		c.CloseIdleConnections() // no idle model connections pile up between runs
	}
	res := s.finishRun(ctx, rctx, r, out)
	events.ended(out.Status)
	prog.end(string(out.Status))
	r.log.Info("Run ended", slog.String("status", string(out.Status)), slog.Int("turns", out.Turns))
	if err := outcomeError(ctx, out); err != nil {
		return nil, err
	}
	return res, nil
}

// idleCloser is a model whose client can close its idle connections
// (agent/openai's).
type idleCloser interface{ CloseIdleConnections() }

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
	s.mu.Lock()
	s.runs[id] = &runState{id: id, cancel: cancel}
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

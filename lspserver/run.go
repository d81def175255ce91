package lspserver

import (
	"context"
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// run is one plan, review, execute or revert command, built whole by
// [Server.newRun] and passed down: what it is about, the policy it runs
// under, its place in its session, and the per-run pieces its tools report
// to. Nothing is added to it once newRun has returned.
type run struct {
	s      *Server
	mode   agent.Mode // for a revert, ModeExecute: it proposes edits
	id     string     // the session's ID
	runID  string     // the run's ID in its session
	srun   *session.Run
	rel    string // the target, workspace-relative; "." for the root
	policy *tools.Policy
	ws     *workspace // reads through the run's os.Root; close releases it
	log    *slog.Logger
	counts *editCounts
	sink   *findingSink
	prop   *proposer
	opts   *agent.RunOptions // what the agent loop gets; nil for a revert
	ext    Extensions        // the connection's hooks and MCP servers; nil: none

	// Set by equip for agent runs: the run's context, which agentls.cancel
	// and a progress cancel end, and what reports the run to the client.
	ctx     context.Context
	untrack func()
	events  *runEvents
	prog    *progress
}

// runRequest is what a run is made from: an agent command's mode and
// arguments, or the session and run number a revert undoes.
type runRequest struct {
	mode   agent.Mode
	args   *command.Args // an agent run; nil for a revert
	sess   *session.Session
	revert int // with args nil: the run of sess to revert
}

// newRun builds a run in four steps, each failure the command's wire
// error: resolve (target, workspace, task, policy, model), open its place
// in the session (waiting for the session's earlier runs, A11), load the
// session's conversation, and equip it (extensions, progress, gateway).
// sess is the session the command continues, nil for a new one. The
// caller ends the returned run with [run.end] and [run.close].
func (s *Server) newRun(ctx context.Context, req runRequest) (*run, error) {
	r := &run{s: s, mode: req.mode, counts: &editCounts{}, log: s.log.With(slog.String("mode", req.mode.String()))}
	if req.args == nil {
		r.mode, r.log = agent.ModeExecute, s.log
	}
	if err := r.resolve(ctx, req.args); err != nil {
		r.close()
		return nil, err
	}
	if err := r.open(ctx, req); err != nil {
		r.close()
		return nil, err
	}
	if r.opts == nil {
		return r, nil // a revert proposes its restores itself
	}
	r.load()
	if err := r.equip(ctx); err != nil {
		r.end(nil)
		r.close()
		return nil, err
	}
	return r, nil
}

// resolve gives the run its workspace, policy and proposer and, for an
// agent run, its target, task and model.
func (r *run) resolve(ctx context.Context, a *command.Args) error {
	s := r.s
	if a != nil {
		rel, err := s.resolveTarget(a.URI)
		if err != nil {
			return err
		}
		r.rel = rel
	}
	root, err := sandbox.OpenRoot(s.root)
	if err != nil {
		return failf(ReasonInternal, "cannot open the workspace")
	}
	r.ws = &workspace{s: s, root: root}
	var task prompts.TaskData
	if a != nil {
		if task, err = s.task(ctx, r.ws, r.rel, a); err != nil {
			return err
		}
	}
	if r.policy, err = s.runPolicy(ctx); err != nil {
		return err
	}
	r.sink = &findingSink{s: s, ws: r.ws}
	r.prop = &proposer{s: s, ws: r.ws, counts: r.counts, timeout: r.policy.QuestionTimeout()}
	if a == nil {
		return nil
	}
	model, err := s.runModel()
	if err != nil {
		return err
	}
	r.opts = &agent.RunOptions{Model: model, Mode: r.mode, Task: task, Logger: r.log, ReadRef: r.readRef,
		MaxTurns: s.opts.MaxTurns, ContextTokens: s.opts.ContextTokens, Strict: s.opts.Strict}
	return nil
}

// open makes r a run of its session (a new session when the command
// names none): it waits for the session's earlier runs to end, then
// begins — an agent run at the place its command took on the read loop,
// a revert at the end of the line.
func (r *run) open(ctx context.Context, req runRequest) error {
	sess, err := req.sess, error(nil)
	if sess == nil {
		if sess, err = r.s.sessions(ctx).New(); err != nil {
			r.s.log.Warn("No session", slog.String("err", err.Error()))
			return failf(ReasonInternal, "cannot start a session: "+err.Error())
		}
	}
	var sr *session.Run
	if req.args != nil {
		sr, err = beginRun(ctx, sess, r.mode, req.args.Instruction)
	} else {
		sr, err = sess.BeginRevert(ctx, req.revert)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failf(ReasonInternal, err.Error())
	}
	r.id, r.runID, r.srun = sess.ID, sr.ID, sr
	r.log = r.log.With(slog.String("session", sess.ID), slog.String("run", sr.ID))
	return nil
}

// load gives the agent the session's conversation as history and the
// session as its journal.
func (r *run) load() {
	r.opts.Logger = r.log
	r.opts.History = r.srun.History()
	r.opts.Journal = r.srun
	if n := len(r.opts.History); n > 0 {
		r.log.Info("Session continued", slog.Int("messages", n))
	}
}

// equip starts the connection's extensions (at its first run), registers
// the run for agentls.cancel, begins its progress report, and gives it its
// gateway last, when the options the sub-agent tool is built from are
// complete.
func (r *run) equip(ctx context.Context) error {
	s := r.s
	r.ext = s.extensions(ctx)
	r.ctx, r.untrack = s.trackRun(ctx, r.id)
	r.log.Info("Run started", slog.String("target", r.rel))
	title := "agentls " + r.mode.String()
	r.events = s.newRunEvents(r.ctx, r.id)
	r.events.started(r.mode, title+" "+r.rel)
	r.prog = s.beginProgress(r.ctx, r.id, title)
	r.prog.events = r.events
	r.opts.Reporter = r.prog
	return r.gateway()
}

// end records the end of the run: in its progress report and events, for
// an agent run, and in its session. A nil outcome is a run that did not
// start.
func (r *run) end(out *agent.Outcome) {
	started := out != nil
	if !started {
		out = &agent.Outcome{Status: agent.StatusFailed, Summary: "the run did not start"}
	}
	if started && r.events != nil {
		r.events.ended(out.Status)
	}
	if r.prog != nil {
		r.prog.end(string(out.Status))
	}
	if started && r.opts != nil {
		r.log.Info("Run ended", slog.String("status", string(out.Status)), slog.Int("turns", out.Turns))
	}
	if r.untrack != nil {
		r.untrack()
	}
	if r.srun != nil {
		r.srun.End(out.Status, out.Turns, out.Summary)
	}
}

// close releases the run's workspace root.
func (r *run) close() {
	if r.ws != nil {
		r.ws.root.Close()
	}
}

package lspserver

import (
	"context"
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// run is one plan, review, execute or revert command, built whole by
// [Server.newRun]: what the LSP front-end resolved (the target, the policy,
// the workspace that reads open buffers, the findings that become
// diagnostics, the proposer that sends workspace/applyEdit) around the
// front-end-independent run of package agentrun, which owns its session,
// progress and gateway. Nothing is added to it once newRun has returned.
type run struct {
	s      *Server
	mode   agent.Mode // for a revert, ModeExecute: it proposes edits
	rel    string     // the target, workspace-relative; "." for the root
	policy *tools.Policy
	ws     *workspace // reads through the run's os.Root; close releases it
	log    *slog.Logger
	counts *editCounts
	sink   *findingSink
	prop   *proposer
	opts   *agent.RunOptions // what the agent loop gets; nil for a revert
	ar     *agentrun.Run
}

// runRequest is what a run is made from: an agent command's mode and
// arguments, or the session and run number a revert undoes.
type runRequest struct {
	mode   agent.Mode
	args   *command.Args // an agent run; nil for a revert
	sess   *session.Session
	revert int // with args nil: the run of sess to revert
}

// newRun resolves a command (target, workspace, task, policy, model; each
// failure the command's wire error) and hands it to [agentrun.New], which
// opens its place in the session (waiting for the session's earlier runs,
// A11), loads the session's conversation and equips it. sess is the
// session the command continues, nil for a new one. The caller ends the
// returned run with r.ar.End and [run.close].
func (s *Server) newRun(ctx context.Context, req runRequest) (*run, error) {
	r := &run{s: s, mode: req.mode, counts: &editCounts{}, log: s.log.With(slog.String("mode", req.mode.String()))}
	if req.args == nil {
		r.mode, r.log = agent.ModeExecute, s.log
	}
	if err := r.resolve(ctx, req.args); err != nil {
		r.close()
		return nil, err
	}
	ar, err := agentrun.New(ctx, r.options(ctx, req))
	if err != nil {
		r.close()
		return nil, err
	}
	r.ar = ar
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

// options are the resolved run as agentrun takes it.
func (r *run) options(ctx context.Context, req runRequest) *agentrun.Options {
	s := r.s
	o := &agentrun.Options{Root: s.root, Mode: r.mode, Target: r.rel, Agent: r.opts,
		Store: s.sessions(ctx), Session: req.sess, Begin: beginRun, Revert: req.revert,
		Gateway: tools.GatewayOptions{Root: s.root, Workspace: r.ws, Findings: r.sink, Exec: s.opts.Exec,
			Policy: r.policy, Approver: approver{s}, Allowances: s.allow, Audit: s.opts.Audit},
		Registry: s.reg, Answers: s.answersQuestions(r.policy), SubAgents: s.subAgents,
		Edits: r.prop, Workspace: r.ws, FrontEnd: frontEnd{s: s, counts: r.counts, recovered: recovered(req.sess)}, Logger: r.log}
	if req.args != nil {
		o.Instruction = req.args.Instruction
	}
	return o
}

// close releases the run's workspace root.
func (r *run) close() {
	if r.ws != nil {
		r.ws.root.Close()
	}
	releaseMemory(keepBytes) // memory.go
}

// frontEnd is what the LSP server gives a run of package agentrun: the
// server, and the run's edit counts, which also count the files its
// commands created and deleted.
type frontEnd struct {
	s      *Server
	counts *editCounts
	// recovered says how the session was recovered from a damaged log,
	// "" when it was not.
	recovered string
}

var _ agentrun.FrontEnd = frontEnd{}

func (f frontEnd) Extensions(ctx context.Context) agentrun.Extensions { return f.s.extensions(ctx) }

func (f frontEnd) Track(ctx context.Context, sessionID string) (context.Context, func()) {
	return f.s.trackRun(ctx, sessionID)
}

// Begin sends the run's agentls/runEvent start and begins its $/progress.
func (f frontEnd) Begin(ctx context.Context, sessionID string, mode agent.Mode, target string) agentrun.Progress {
	title := "agentls " + mode.String()
	events := f.s.newRunEvents(ctx, sessionID)
	events.started(mode, title+" "+target)
	f.s.setRunEvents(ctx, events)
	if f.recovered != "" {
		// Told as a warning when the session was read (sessions); the
		// run's own view says it too.
		events.warning(sandbox.VisibleText(f.recovered))
	}
	p := f.s.beginProgress(ctx, sessionID, title)
	p.events = events
	if f.counts != nil {
		p.onEvent = f.counts.event
	}
	return p
}

// Warn tells the user, in the log and in the run's view (warn.go).
func (f frontEnd) Warn(ctx context.Context, msg string) {
	f.s.warnUser(ctx, msg, false)
}

// answersQuestions reports whether a question of this run can reach
// someone who answers it: not under the ci profile, and not for a client
// that declares itself unattended (headless --approve=never).
func (s *Server) answersQuestions(p *tools.Policy) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.Profile != tools.ProfileCI && !s.caps.unattended
}

// recovered describes the recovery of sess from a damaged log; "" when it
// was not damaged (or is a new session).
func recovered(sess *session.Session) string {
	if sess == nil {
		return ""
	}
	if rec := sess.Recovery(); rec != nil {
		return rec.String()
	}
	return ""
}

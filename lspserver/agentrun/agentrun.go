// Package agentrun is one agent run, for any front-end: it opens the run's
// place in its session, loads the session's conversation, equips the run
// with its progress report and its gateway (the mode's tools, hooks, MCP
// tools, the sub-agent tool, checkpoints), hands it to the agent loop
// between the extensions' hooks and ends it.
//
// The front-end — the LSP server today, an Agent Client Protocol server
// next — resolves a command into [Options] (target, task, model, policy,
// and what reaches its user: the workspace it reads through, the findings
// sink, the approver, the edit [Proposer]) and is asked for the rest
// through [FrontEnd] once the session is known. agentrun imports no
// protocol types and no front-end (cmd/agentls/deps_test.go), so that
// front-ends share it without importing one another.
package agentrun

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/tools"
)

// Extensions are the user's hooks and MCP servers of the workspace (A13,
// B6), started once per connection, before its first run. Its methods
// must be safe for concurrent use.
type Extensions interface {
	// Hooks run around every tool call of a run; nil runs none.
	Hooks() tools.Hooks
	// Tools are the MCP tools still available; execute runs offer them.
	Tools() []*tools.Tool
	// Runs are the command lines, arguments and environment values of
	// the hooks and servers: what they name in the workspace is held
	// when a command changes it (S10).
	Runs() []string
	// SessionStart and Stop run the hooks of those events for a run.
	SessionStart(ctx context.Context, sessionID, cwd string)
	Stop(ctx context.Context, sessionID, cwd, status string)
	// Close stops the MCP servers.
	Close() error
}

// Proposer is the front-end's edit proposer: it shows a change to its
// user and reports what landed.
type Proposer interface {
	tools.EditProposer
	// Flush gets the changes that landed in the user's buffers onto the
	// disk and returns the paths that are not there yet.
	Flush(ctx context.Context) []string
}

// Progress reports a run to its user while it runs; Report is called
// from the agent loop.
type Progress interface {
	agent.Reporter
	// End reports the end of the run with its status.
	End(status agent.Status)
}

// FrontEnd is what a run asks of the front-end that started it once its
// session is known.
type FrontEnd interface {
	// Extensions starts the connection's hooks and MCP servers at its
	// first run and returns them; nil: none.
	Extensions(ctx context.Context) Extensions
	// Track registers the run under its session's ID, so that its user
	// can cancel it, and returns the run's context and the function that
	// ends the registration (and the context).
	Track(ctx context.Context, sessionID string) (context.Context, func())
	// Begin reports the start of the run and returns its progress.
	Begin(ctx context.Context, sessionID string, mode agent.Mode, target string) Progress
	// Warn tells the user of something that does not stop the run.
	Warn(ctx context.Context, msg string)
}

// Options are a run as its front-end resolved it.
type Options struct {
	Root   string     // the workspace root
	Mode   agent.Mode // plan, review or execute
	Target string     // workspace-relative; "." for the root
	// Agent is what the agent loop gets: model, task, limits, logger; the
	// run adds its history, journal, reporter and tools. Nil for a
	// revert, which proposes its restores itself.
	Agent *agent.RunOptions
	// Store holds the sessions; Session is the one the command continues,
	// nil for a new one.
	Store   *session.Store
	Session *session.Session
	// Begin begins the run in its session: the front-end may have taken
	// its place in the session's line before (in wire order, A11). Nil
	// means at the end of the line.
	Begin func(ctx context.Context, sess *session.Session, mode agent.Mode, instruction string) (*session.Run, error)
	// Instruction is the run's instruction, as its session records it.
	Instruction string
	// Revert, with Agent nil, is the number of the run a revert undoes.
	Revert int
	// Gateway is the front-end's part of the gateway: root, workspace,
	// findings, policy, approver, allowances, audit, process runner. The
	// run adds the tools its mode offers, edits, hooks and checkpoints.
	Gateway  tools.GatewayOptions
	Registry *tools.Registry
	// Answers says whether someone answers the run's questions (not the
	// ci profile, not an unattended client).
	Answers bool
	// SubAgents gives modes that start sub-agents the agent tool.
	SubAgents bool
	// Edits proposes the run's changes; the run keeps a checkpoint around
	// each proposal. Workspace reads what the user has (open buffers first).
	Edits     Proposer
	Workspace tools.Workspace
	FrontEnd  FrontEnd
	Logger    *slog.Logger
}

// Run is one run, built whole by [New]: nothing is added to it afterwards.
type Run struct {
	o         *Options
	SessionID string
	RunID     string
	Session   *session.Run
	Log       *slog.Logger
	Ext       Extensions      // the connection's hooks and MCP servers; nil: none
	Ctx       context.Context // the run's: cancelled when its user cancels it
	untrack   func()
	prog      Progress
	// created is the session this run started; the run releases it at
	// its end (the front-end releases a session it passed in).
	created *session.Session
}

// New opens the run's place in its session (a new session when the
// options name none), waiting for the session's earlier runs to end (A11),
// loads the session's conversation and equips the run: extensions,
// progress, and last its gateway, when the options the sub-agent tool is
// built from are complete. A revert is only opened. The caller ends the
// run with [Run.End].
func New(ctx context.Context, o *Options) (*Run, error) {
	r := &Run{o: o, Log: o.Logger}
	if err := r.open(ctx); err != nil {
		return nil, err
	}
	if o.Agent == nil {
		return r, nil
	}
	r.load()
	if err := r.equip(ctx); err != nil {
		r.End(nil)
		return nil, err
	}
	return r, nil
}

func (r *Run) open(ctx context.Context) error {
	o, sess, err := r.o, r.o.Session, error(nil)
	if sess == nil {
		if sess, err = o.Store.New(); err != nil {
			r.Log.Warn("No session", slog.String("err", err.Error()))
			return errors.New("cannot start a session: " + err.Error())
		}
		r.created = sess
	}
	var sr *session.Run
	switch {
	case o.Agent == nil:
		sr, err = sess.BeginRevert(ctx, o.Revert)
	case o.Begin != nil:
		sr, err = o.Begin(ctx, sess, o.Mode, o.Instruction)
	default:
		sr, err = sess.Begin(ctx, o.Mode, o.Instruction)
	}
	if err != nil {
		if r.created != nil {
			r.created.Release()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	r.SessionID, r.RunID, r.Session = sess.ID, sr.ID, sr
	r.Log = r.Log.With(slog.String("session", sess.ID), slog.String("run", sr.ID))
	return nil
}

// load gives the agent the session's conversation as history and the
// session as its journal.
func (r *Run) load() {
	a := r.o.Agent
	a.Logger = r.Log
	a.History = r.Session.History()
	a.Journal = r.Session
	if n := len(a.History); n > 0 {
		r.Log.Info("Session continued", slog.Int("messages", n))
	}
}

func (r *Run) equip(ctx context.Context) error {
	fe := r.o.FrontEnd
	r.Ext = fe.Extensions(ctx)
	r.Ctx, r.untrack = fe.Track(ctx, r.SessionID)
	r.Log.Info("Run started", slog.String("target", r.o.Target))
	r.prog = fe.Begin(r.Ctx, r.SessionID, r.o.Mode, r.o.Target)
	r.o.Agent.Reporter = r.prog
	return r.gateway()
}

// Execute hands the run to the agent loop, between the hooks of the
// session's start and stop.
func (r *Run) Execute() *agent.Outcome {
	root := r.o.Root
	if r.Ext != nil {
		r.Ext.SessionStart(r.Ctx, r.SessionID, root)
	}
	out := agent.Run(r.Ctx, r.o.Agent)
	if r.Ext != nil {
		r.Ext.Stop(context.WithoutCancel(r.Ctx), r.SessionID, root, string(out.Status))
	}
	if c, ok := r.o.Agent.Model.(idleCloser); ok {
		c.CloseIdleConnections() // no idle model connections pile up between runs
	}
	return out
}

// idleCloser is a model whose client can close its idle connections
// (agent/openai's).
type idleCloser interface{ CloseIdleConnections() }

// End records the end of the run: in its progress report and in its
// session. A nil outcome is a run that did not start.
func (r *Run) End(out *agent.Outcome) {
	started := out != nil
	if !started {
		out = &agent.Outcome{Status: agent.StatusFailed, Summary: "the run did not start"}
	}
	if r.prog != nil {
		r.prog.End(out.Status)
	}
	if started && r.o.Agent != nil {
		r.Log.Info("Run ended", slog.String("status", string(out.Status)), slog.Int("turns", out.Turns))
	}
	if r.untrack != nil {
		r.untrack()
	}
	r.Session.End(out.Status, out.Turns, out.Summary)
	if r.created != nil {
		// A session this run began and the model never answered is not
		// kept (issue 25); any other is released, its log closed: a later
		// run reads it again.
		if r.created.Discard() {
			r.Log.Info("Session discarded: the model never answered its run")
		}
		r.created = nil
	}
}

package lspserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/transport"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// Options configures a [Server]. A nil *Options means defaults.
type Options struct {
	// NewModel returns the model for one run. An error fails the run with
	// reason model.unavailable and the error's message (which must not
	// contain secrets).
	NewModel func() (agent.Model, error)
	// Registry holds the tools; nil means the built-ins, and execute runs
	// then also get the agent tool (A10, B7), built for each run.
	Registry *tools.Registry
	// SaveTimeout bounds the wait for approved edits to reach the disk.
	// Zero means 30 seconds.
	SaveTimeout time.Duration
	// SaveDocumentsTimeout bounds each agentls/saveDocuments, which our
	// plugins answer without asking anyone; past it the run goes on with
	// what is on disk and says so. Zero means [DefaultSaveDocumentsTimeout].
	SaveDocumentsTimeout time.Duration
	// MaxTurns bounds each run; zero means agent.DefaultMaxTurns.
	MaxTurns int
	// ContextTokens is the model's context budget for compaction (A9);
	// zero means agent.DefaultContextTokens.
	ContextTokens int
	// Strict turns silent repairs into failures, per dimension (A8).
	Strict agent.Strict
	// LoadPolicy returns the policy for a run in the workspace root; it is
	// called at the start of every run, so edits to policy files apply to
	// the next run. Nil means the built-in editor policy. Its approval
	// timeout bounds every question of the run (E7).
	LoadPolicy func(root string) (*tools.Policy, error)
	// Audit receives one record per tool decision; nil discards.
	Audit *tools.AuditLog
	// Exec runs the commands of run_command; nil means a runner of the
	// server's own, without prestart.
	Exec *exec.Runner
	// StartExtensions starts the user's hooks and MCP servers for the
	// workspace root at the connection's first run; ask puts questions
	// (trust of project entries) to the user through the editor. Nil
	// means none. Serve closes them when it returns.
	StartExtensions func(ctx context.Context, root string, ask tools.Approver) Extensions
	// Watch turns on watching the workspace with fsnotify (E10); nil
	// leaves file events to the client's workspace/didChangeWatchedFiles.
	Watch *WatchOptions
	// Logger receives server logs (never stdout). Nil discards them.
	Logger *slog.Logger
	// StateDir is where sessions persist (A11, A16): agentls's state
	// directory, never inside the workspace. Empty keeps them in memory
	// for the connection.
	StateDir string
	// SessionLimits bound the checkpoints kept for reverts; nil means
	// session.DefaultLimits.
	SessionLimits *session.Limits
}

// ErrExitWithoutShutdown is returned by [Serve] when the client sent exit
// before shutdown: the specification asks the server process to exit
// with code 1 then.
var ErrExitWithoutShutdown = errors.New("exit without shutdown")

// Serve speaks LSP over rwc until the client exits, the stream ends or ctx
// is done, then stops every run and returns once all its goroutines have.
// An exit that did not follow shutdown is [ErrExitWithoutShutdown].
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts *Options) error {
	s := newServer(opts)
	var stopConn context.CancelFunc
	s.connCtx, stopConn = context.WithCancel(context.WithoutCancel(ctx))
	lost := make(chan struct{})
	conn := transport.NewConn(transport.WatchRead(rwc, func() { close(lost) }),
		&transport.Options{Refused: s.badMessage, Waiting: s.awaiting, Replied: s.replied})
	s.conn = conn
	conn.Go(ctx, s.handle)
	select {
	case <-conn.Done():
	case <-s.exited:
	case <-lost:
	case <-ctx.Done():
	}
	s.exit()
	s.stopRuns()
	s.drain(5 * time.Second)
	stopConn()
	s.bg.Wait()
	defer s.closeExtensions()
	s.auditSummary()
	closed := make(chan struct{})
	go func() {
		_ = conn.Close() // closing a finished stream may report an already-closed pipe
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		// A transport whose Close cannot interrupt a blocked Read (a
		// blocking stdin): the caller is about to exit the process.
		s.log.Warn("Connection did not close in time")
		return s.exitErr(nil)
	}
	return s.exitErr(conn.Err())
}

// badMessage is told by the transport why it refused a message (E1,
// A14): the log and the client's log window say it, and the connection
// goes on.
func (s *Server) badMessage(reason string) {
	s.log.Warn("Refused a malformed message", slog.String("reason", reason))
	if s.conn != nil {
		s.logMessage(context.Background(), protocol.MessageTypeWarning, "agentls: refused a malformed message: "+reason)
	}
}

// exitErr is err, or ErrExitWithoutShutdown when the connection ended that way.
func (s *Server) exitErr(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitEarly {
		return ErrExitWithoutShutdown
	}
	return err
}

// Server is one LSP connection: one client, one workspace.
type Server struct {
	opts Options
	log  *slog.Logger
	reg  *tools.Registry
	// subAgents: execute runs get the agent tool (the built-in registry).
	subAgents bool
	conn      jsonrpc2.Conn
	docs      *documents
	allow     *tools.Allowances // "always" answers: the user's store, or memory (E21)
	ext       extensions        // hooks and MCP servers, started at the first run
	policy    policyState
	// connCtx is the connection's lifetime: cancelled when Serve returns,
	// which then waits for bg, the connection's background work (the file
	// watch, policy reloads, registrations, the sweep of stale temp files).
	connCtx context.Context
	bg      sync.WaitGroup

	exited   chan struct{}
	exitOnce sync.Once
	initOnce sync.Once // initialized starts the connection's background work once

	started time.Time // when the server was made: files older are not ours in progress

	mu      sync.Mutex // guards the fields below
	state   lifecycle
	exiting bool // set at exit: no new calls are counted
	// exitEarly: the client sent exit before shutdown (exit code 1).
	exitEarly bool
	root      string // absolute, symlinks resolved
	caps      clientCaps
	inflight  map[jsonrpc2.ID]*pendingCall
	// unanswered are the calls counted for drain whose response is not
	// yet written; quiet is closed whenever there are none.
	unanswered map[jsonrpc2.ID]bool
	quiet      chan struct{}
	runs       map[string]*runState
	diags      diagnostics    // the review findings published, by document
	store      *session.Store // the workspace's sessions, opened at first use
}

type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// clientCaps are the client capabilities agentls acts on.
type clientCaps struct {
	applyEdit        bool
	documentChanges  bool
	annotations      bool
	createFiles      bool
	deleteFiles      bool // resource operation delete (reverting a created file)
	workDoneProgress bool
	saveDocuments    bool // experimental.agentls.saveDocuments
	editText         bool // experimental.agentls.editText
	ownPlugin        bool // announces experimental.agentls: one of our plugins
	showDocument     bool // window.showDocument.support
	// watchedFilesDynamic: workspace/didChangeWatchedFiles can be
	// registered with client/registerCapability.
	watchedFilesDynamic bool
	// confirmsAnnotations: the client shows annotated edits that need
	// confirmation before applying them (client_trust.go, E14).
	confirmsAnnotations bool
	clientName          string
	clientVersion       string
	runEvents           bool // experimental.agentls.runEvents
	unattended          bool // experimental.agentls.unattended: nobody answers questions
	autoApprove         bool // experimental.agentls.autoApprove: a flag answers yes (E21)
}

func newServer(opts *Options) *Server {
	s := &Server{
		docs:       newDocuments(),
		exited:     make(chan struct{}),
		inflight:   make(map[jsonrpc2.ID]*pendingCall),
		runs:       make(map[string]*runState),
		quiet:      closedChan(),
		unanswered: make(map[jsonrpc2.ID]bool),
		policy:     policyState{kick: make(chan struct{}, 1)},
		connCtx:    context.Background(),
		started:    time.Now(),
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.SaveTimeout <= 0 {
		s.opts.SaveTimeout = 30 * time.Second
	}
	if s.opts.SaveDocumentsTimeout <= 0 {
		s.opts.SaveDocumentsTimeout = DefaultSaveDocumentsTimeout
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.opts.Exec == nil {
		s.opts.Exec = exec.New(nil)
	}
	s.allow = tools.OpenAllowances(tools.AllowStorePath(s.opts.StateDir), s.log) // E21: the user's, never the project's
	s.watchAudit()
	s.reg = s.opts.Registry
	if s.reg == nil {
		s.reg = tools.NewRegistry()
		s.reg.MustRegister(builtin.All()...)
		s.subAgents = true
	}
	return s
}

// stopRuns cancels every run; Serve then waits for them.
func (s *Server) stopRuns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		r.cancel()
	}
}

// drain waits, at most d, until every counted call has its response on
// the wire, so that none is lost when the connection closes after
// shutdown or exit. It returns early when the connection is gone.
func (s *Server) drain(d time.Duration) {
	s.mu.Lock()
	quiet := s.quiet
	s.mu.Unlock()
	var done <-chan struct{}
	if s.conn != nil {
		done = s.conn.Done()
	}
	select {
	case <-quiet:
	case <-done:
	case <-time.After(d):
		s.log.Warn("Calls still running at exit")
	}
}

// countCall records a call whose response drain waits for; the caller
// holds mu.
func (s *Server) countCall(id jsonrpc2.ID) {
	if len(s.unanswered) == 0 {
		s.quiet = make(chan struct{})
	}
	s.unanswered[id] = true
}

// awaiting reports whether some counted call has no response yet.
func (s *Server) awaiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.unanswered) > 0
}

// replied is told by the connection that the response to id is written.
func (s *Server) replied(id jsonrpc2.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unanswered[id] {
		return
	}
	delete(s.unanswered, id)
	if len(s.unanswered) == 0 {
		close(s.quiet)
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (s *Server) exit() {
	s.mu.Lock()
	s.exiting = true
	s.mu.Unlock()
	s.exitOnce.Do(func() { close(s.exited) })
}

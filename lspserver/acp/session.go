package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/tools"
)

// place is one workspace root of the connection: its session store and
// its extensions, started at its first run.
type place struct {
	root  string
	store *session.Store
	once  sync.Once
	ext   agentrun.Extensions
}

func (p *place) close() {
	p.once.Do(func() {}) // none start after this
	if p.ext != nil {
		_ = p.ext.Close()
	}
}

// acpSession is one ACP session: a session of our store, held for the
// connection, in a workspace root, with its current mode.
type acpSession struct {
	id   string
	pl   *place
	sess *session.Session

	mu     sync.Mutex
	mode   agent.Mode
	cancel context.CancelFunc // the running prompt's; nil when none
	calls  int                // tool call IDs of this connection
	// pendingWhy is the hunk the user rejected in the last prompt to
	// say why in this one (explain.go).
	pendingWhy string
}

func (s *acpSession) currentMode() agent.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

func (s *acpSession) cancelRun() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

func (a *acpAgent) session(id string) *acpSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// workspaceRoot checks a session's cwd: an absolute, clean path of an
// existing directory, inside [Options.Root] when that is set.
func (a *acpAgent) workspaceRoot(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd {
		return "", invalid("cwd must be an absolute, clean path: %q", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", invalid("cwd is not a directory: %q", cwd)
	}
	if r := a.o.Root; r != "" && !inside(r, cwd) {
		return "", invalid("cwd %q is outside the workspace %q agentls acp was started for", cwd, r)
	}
	return cwd, nil
}

// inside reports whether dir is root or below it, symbolic links
// followed on both sides (a link inside root may point out of it).
func inside(root, dir string) bool {
	for _, p := range []*string{&root, &dir} {
		real, err := filepath.EvalSymlinks(*p)
		if err != nil {
			return false
		}
		*p = real
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func invalid(format string, args ...any) error {
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, args...)})
}

// place returns the connection's place for root, opening its store.
func (a *acpAgent) place(root string) *place {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.places[root]; ok {
		return p
	}
	opts := &session.Options{Logger: a.log, Limits: a.o.SessionLimits}
	st, err := session.Open(a.o.StateDir, root, opts)
	if err != nil {
		a.log.Warn("Sessions kept in memory: " + err.Error())
		st, _ = session.Open("", root, opts)
	}
	p := &place{root: root, store: st}
	a.places[root] = p
	return p
}

// NewSession starts a session of our store in the cwd, in execute mode.
func (a *acpAgent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	root, err := a.workspaceRoot(p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	pl := a.place(root)
	sess, err := pl.store.New()
	if err != nil {
		return sdk.NewSessionResponse{}, sdk.NewInternalError(map[string]any{"error": "cannot start a session: " + err.Error()})
	}
	s := a.add(sess, pl, agent.ModeExecute)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: modeState(s.mode)}, nil
}

func (a *acpAgent) add(sess *session.Session, pl *place, mode agent.Mode) *acpSession {
	s := &acpSession{id: sess.ID, pl: pl, sess: sess, mode: mode}
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.sessions[s.id]; ok {
		old.sess.Release() // loaded again: one reference is enough
	}
	a.sessions[s.id] = s
	return s
}

// LoadSession continues a session of our store (started by exec, serve
// or acp): its history is replayed as session/updates before the answer,
// and its mode is the one set or run last (mode.go).
func (a *acpAgent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	root, err := a.workspaceRoot(p.Cwd)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	pl := a.place(root)
	sess, err := pl.store.Session(string(p.SessionId))
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrAmbiguous):
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	case err != nil:
		return sdk.LoadSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	if sess.ID != string(p.SessionId) {
		sess.Release() // a prefix, or a damaged log replaced: not the session asked for
		return sdk.LoadSessionResponse{}, invalid("no session %q in this workspace", p.SessionId)
	}
	mode := loadedMode(pl.store, sess)
	s := a.add(sess, pl, mode)
	a.replay(s.id, sess.Messages())
	return sdk.LoadSessionResponse{Modes: modeState(mode)}, nil
}

// SetSessionMode switches between plan, review and execute; the next
// prompt runs in it.
func (a *acpAgent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s := a.session(string(p.SessionId))
	if s == nil {
		return sdk.SetSessionModeResponse{}, invalid("no session %q", p.SessionId)
	}
	m, err := agent.ParseMode(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, invalid("%s", err.Error())
	}
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	keepMode(s.pl.store, s.id, m)
	return sdk.SetSessionModeResponse{}, nil
}

// modeDescriptions say what each mode does, for the client's picker.
var modeDescriptions = map[agent.Mode]string{
	agent.ModePlan:    "Read-only: investigate and answer with a plan",
	agent.ModeReview:  "Read-only: report findings on the code",
	agent.ModeExecute: "Make the change: every edit and command asked",
}

func modeState(cur agent.Mode) *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(cur.String())}
	for _, m := range agent.Modes() {
		d := modeDescriptions[m]
		name := strings.ToUpper(m.String()[:1]) + m.String()[1:]
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.String()), Name: name, Description: &d})
	}
	return st
}

// extensions starts the place's hooks and MCP servers at its first run,
// asking trust questions through ask.
func (a *acpAgent) extensions(ctx context.Context, pl *place, ask tools.Approver) agentrun.Extensions {
	pl.once.Do(func() {
		if a.o.StartExtensions != nil {
			pl.ext = a.o.StartExtensions(ctx, pl.root, ask)
		}
	})
	return pl.ext
}

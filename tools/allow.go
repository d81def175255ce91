package tools

import (
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
)

// Allowances holds the user's "always" answers (E21, issue 28): kept in
// the user's [AllowStore] at the scope they chose (this session, this
// workspace, everywhere), or, with no store, in memory for the session.
// Keys are normalized calls (tool and subject), never raw argument text,
// so a differently spelled call is asked again. A call that must be
// asked every time ([neverAlways]) is never covered, whatever the store
// says. It is safe for concurrent use.
type Allowances struct {
	store *AllowStore
	log   *slog.Logger
	mu    sync.Mutex // guards mem
	mem   map[allowKey]bool
}

// allowKey is one call in its place: the normalized call, the
// workspace root's real path, the session.
type allowKey struct{ tool, subject, workspace, session string }

// NewAllowances returns allowances kept in memory only: "always" lasts
// for the session while this process runs.
func NewAllowances() *Allowances { return &Allowances{mem: make(map[allowKey]bool)} }

// OpenAllowances returns the allowances kept in the store at path (see
// [AllowStorePath]); "" keeps them in memory, as [NewAllowances].
func OpenAllowances(path string, log *slog.Logger) *Allowances {
	a := NewAllowances()
	a.store, a.log = OpenAllowStore(path), log
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}

// scopes are the scopes an "always" answer for k may be kept at: all of
// them with a usable store, the session alone in memory.
func (s *Allowances) scopes(k allowKey) []Scope {
	switch {
	case s == nil:
		return nil
	case s.usable(k):
		return AllScopes
	}
	return []Scope{ScopeSession}
}

// usable reports whether the store may be read and written for a call in
// k's workspace: never a store inside that workspace (a repository, an
// .envrc that sets XDG_STATE_HOME, must not grant itself anything).
func (s *Allowances) usable(k allowKey) bool {
	if s.store == nil || k.workspace == "" {
		return false
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(s.store.Path()))
	if err != nil {
		dir = filepath.Clean(filepath.Dir(s.store.Path())) // not made yet
	}
	if dir == k.workspace || strings.HasPrefix(dir, k.workspace+string(filepath.Separator)) {
		s.log.Warn("Allowance store inside the workspace; not used", slog.String("store", s.store.Path()))
		return false
	}
	return true
}

// allowed returns the scope and the ID of the grant that covers k, if
// one does; the ID is "" for a grant kept in memory.
func (s *Allowances) allowed(k allowKey) (Scope, string, bool) {
	if s == nil {
		return "", "", false
	}
	s.mu.Lock()
	mem := s.mem[k]
	s.mu.Unlock()
	if mem {
		return ScopeSession, "", true
	}
	if !s.usable(k) {
		return "", "", false
	}
	grants, err := s.store.Grants()
	if err != nil {
		s.log.Warn("Allowances not used", slog.String("err", err.Error()))
		return "", "", false
	}
	for i := range grants {
		if grants[i].covers(k) {
			return grants[i].Scope, grants[i].ID, true
		}
	}
	return "", "", false
}

// remember keeps "always" for k at scope. When the store cannot keep it,
// the session remembers it in memory: never wider than the user said.
func (s *Allowances) remember(k allowKey, scope Scope) {
	if s == nil {
		return
	}
	if s.usable(k) {
		g := Grant{Scope: scope, Tool: k.tool, Subject: k.subject}
		switch scope {
		case ScopeSession:
			g.Workspace, g.Session = k.workspace, k.session
		case ScopeWorkspace:
			g.Workspace = k.workspace
		}
		_, err := s.store.Add(g)
		if err == nil {
			return
		}
		s.log.Warn("Allowance kept for this session only", slog.String("err", err.Error()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem[k] = true
}

// realRoot is root's real path, the key of a workspace scope; "" when it
// has none (then only the session remembers).
func realRoot(root string) string {
	if root == "" {
		return ""
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return ""
	}
	r, err = filepath.Abs(r)
	if err != nil {
		return ""
	}
	return r
}

// neverAlways reports a call that is asked every time, whatever was
// answered before (E15, E21): a change to a control file, and a command
// with a part no policy rule can lift (what its flags make it run, paths
// outside the workspace, secrets, control files: [shell.Command].Fixed).
// An "always" is a rule the user makes by answering; it lifts no more.
func neverAlways(v *Verdict) bool {
	if v.Control {
		return true
	}
	for i := range v.Commands {
		if v.Commands[i].Fixed != Allow {
			return true
		}
	}
	return false
}

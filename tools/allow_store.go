package tools

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// The user's lasting "always" answers (E21, issue 28): one file in the
// user's state directory, never in a project, so a repository cannot
// grant itself anything.

// Scope is how far an "always" answer reaches.
type Scope string

// The scopes of an "always" answer, narrowest first.
const (
	ScopeSession    Scope = "session"    // the agentls session (agent/session), not the connection
	ScopeWorkspace  Scope = "workspace"  // the workspace root, by its real path
	ScopeEverywhere Scope = "everywhere" // every workspace of this user
)

// AllScopes are the scopes an [ApprovalRequest] offers when the answer
// can be kept, narrowest first.
var AllScopes = []Scope{ScopeSession, ScopeWorkspace, ScopeEverywhere}

// Grant is one kept "always" answer: the normalized call (tool and
// subject) it covers, where, and when the user gave it.
type Grant struct {
	ID        string    `json:"id"`
	Scope     Scope     `json:"scope"`
	Workspace string    `json:"workspace,omitempty"` // the root's real path (workspace and session scopes)
	Session   string    `json:"session,omitempty"`   // the session ID (session scope)
	Tool      string    `json:"tool"`
	Subject   string    `json:"subject"`
	Granted   time.Time `json:"granted"`
}

// Problem says why the store ignores g ("" when it is honoured): a grant
// that does not say exactly where it applies never applies anywhere.
func (g *Grant) Problem() string {
	switch {
	case g.Tool == "" || g.Subject == "":
		return "no tool or subject"
	case g.Scope == ScopeEverywhere:
		return ""
	case g.Scope != ScopeWorkspace && g.Scope != ScopeSession:
		return fmt.Sprintf("unknown scope %q", g.Scope)
	case !filepath.IsAbs(g.Workspace):
		return "no workspace"
	case g.Scope == ScopeSession && g.Session == "":
		return "no session"
	}
	return ""
}

// covers reports whether g lets the call k run.
func (g *Grant) covers(k allowKey) bool {
	if g.Problem() != "" || g.Tool != k.tool || g.Subject != k.subject {
		return false
	}
	switch g.Scope {
	case ScopeWorkspace:
		return k.workspace != "" && g.Workspace == k.workspace
	case ScopeSession:
		return k.workspace != "" && k.session != "" && g.Workspace == k.workspace && g.Session == k.session
	}
	return true
}

// allowFile is the store's format.
type allowFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

const allowVersion = 1

// maxAllowFile bounds the store: it is read at every question, and a
// file far beyond what answers make is not one agentls wrote.
const maxAllowFile = 4 << 20

// ErrAllowStoreDamaged is returned when the store's file cannot be read
// as a store: it then grants nothing.
var ErrAllowStoreDamaged = errors.New("allowance store damaged")

// ErrNoGrant is returned by [AllowStore.Revoke] for an ID it does not hold.
var ErrNoGrant = errors.New("no such allowance")

// AllowStore is the user's kept "always" answers. It is safe for
// concurrent use within a process; concurrent processes may lose each
// other's last grant (which is then asked again), never corrupt the file.
type AllowStore struct {
	path string
	mu   sync.Mutex // guards writes of the file
}

// AllowStorePath is the store's file in agentls's state directory; ""
// when there is none.
func AllowStorePath(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "allow.json")
}

// OpenAllowStore returns the store at path; nil for "" (nothing is kept).
func OpenAllowStore(path string) *AllowStore {
	if path == "" {
		return nil
	}
	return &AllowStore{path: path}
}

// Path is the store's file.
func (s *AllowStore) Path() string { return s.path }

// Grants returns the kept grants, the oldest first. A file that is not a
// store of this version is [ErrAllowStoreDamaged]: no grants.
func (s *AllowStore) Grants() ([]Grant, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	return f.Grants, nil
}

func (s *AllowStore) read() (*allowFile, error) {
	f := &allowFile{Version: allowVersion}
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err == nil && !fi.Mode().IsRegular() { // a FIFO would hang every question
		return nil, fmt.Errorf("%w: %s: not a regular file", ErrAllowStoreDamaged, s.path)
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrAllowStoreDamaged, s.path, err)
	}
	if len(data) > maxAllowFile {
		return nil, fmt.Errorf("%w: %s: over %d bytes", ErrAllowStoreDamaged, s.path, maxAllowFile)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrAllowStoreDamaged, s.path, err)
	}
	if f.Version != allowVersion {
		return nil, fmt.Errorf("%w: %s: version %d, want %d", ErrAllowStoreDamaged, s.path, f.Version, allowVersion)
	}
	return f, nil
}

// Add keeps g with a new ID and the time now, replacing a grant of the
// same call and place; it returns the grant kept. A damaged store is not
// written over.
func (s *AllowStore) Add(g Grant) (Grant, error) {
	if p := g.Problem(); p != "" {
		return Grant{}, errors.New("grant not kept: " + p)
	}
	var id [4]byte
	_, _ = rand.Read(id[:])
	g.ID, g.Granted = hex.EncodeToString(id[:]), time.Now().UTC().Truncate(time.Second)
	err := s.update(false, func(f *allowFile) error {
		f.Grants = slices.DeleteFunc(f.Grants, func(o Grant) bool {
			return o.Scope == g.Scope && o.Workspace == g.Workspace && o.Session == g.Session && o.Tool == g.Tool && o.Subject == g.Subject
		})
		f.Grants = append(f.Grants, g)
		return nil
	})
	return g, err
}

// Revoke forgets the grant of that ID, or every grant for "all" (which
// also replaces a damaged file). It returns how many it forgot.
func (s *AllowStore) Revoke(id string) (int, error) {
	n := 0
	err := s.update(id == "all", func(f *allowFile) error {
		before := len(f.Grants)
		f.Grants = slices.DeleteFunc(f.Grants, func(g Grant) bool { return id == "all" || g.ID == id })
		if n = before - len(f.Grants); n == 0 && id != "all" {
			return fmt.Errorf("%w: %q (agentls policy list shows them)", ErrNoGrant, id)
		}
		return nil
	})
	return n, err
}

// update changes the file with change and writes it atomically. A
// damaged file is kept as it is (it grants nothing) unless fresh: then it
// is replaced.
func (s *AllowStore) update(fresh bool, change func(*allowFile) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	switch {
	case err != nil && (!fresh || !errors.Is(err, ErrAllowStoreDamaged)):
		return err
	case err != nil:
		f = &allowFile{Version: allowVersion}
	}
	if err := change(f); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	dir, err := sandbox.OpenRoot(filepath.Dir(s.path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.WriteFileAtomic(filepath.Base(s.path), append(data, '\n'), 0o600)
}

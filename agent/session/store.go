package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors of a [Store], wrapped with the ID concerned.
var (
	ErrNotFound  = errors.New("no such session")
	ErrAmbiguous = errors.New("ambiguous session ID")
	ErrNoRun     = errors.New("no such run")
)

// Limits bound the checkpoints a workspace keeps for reverts. A file over
// FileBytes, or beyond RunFiles or RunBytes in one run, is still changed
// but cannot be reverted (the run is told). Of the runs with checkpoints,
// the newest Runs are kept, none older than MaxAge, and at most TotalBytes
// in all; older checkpoints are deleted when a run begins.
type Limits struct {
	FileBytes  int64
	RunFiles   int
	RunBytes   int64
	Runs       int
	TotalBytes int64
	MaxAge     time.Duration
}

// DefaultLimits are the checkpoint bounds when [Options.Limits] is nil.
var DefaultLimits = Limits{
	FileBytes:  8 << 20,
	RunFiles:   200,
	RunBytes:   64 << 20,
	Runs:       50,
	TotalBytes: 512 << 20,
	MaxAge:     30 * 24 * time.Hour,
}

// Options configures a [Store]. A nil *Options means defaults.
type Options struct {
	// Logger receives the store's logs; nil discards them.
	Logger *slog.Logger
	// Warn, when set, is told about every failure to persist (disk full)
	// and every damaged file recovered, in a sentence for the user; the
	// conversation goes on either way.
	Warn func(msg string)
	// Limits bound the checkpoints; nil means [DefaultLimits].
	Limits *Limits
}

// Store is the sessions of one workspace. It is safe for concurrent use;
// within one process there is one [Session] value per session while it is
// in use, so that its runs queue (see [Session.Begin]). [Store.New] and
// [Store.Session] hand out references that [Session.Release] gives back;
// the last one closes the session's log (see release.go).
type Store struct {
	dir    string // "" keeps sessions in memory
	root   string
	log    *slog.Logger
	warn   func(string)
	limits Limits
	fsync  func(*os.File) error // makes a log durable; tests slow it down
	// writeLog appends to a log; tests make it fail as a full disk does.
	writeLog func(*os.File, []byte) (int, error)
	// syncDelay is how long a background fsync waits for more records
	// ([groupCommit]; tests change it).
	syncDelay time.Duration

	mu   sync.Mutex // guards live, closing, replaced and every session's refs
	live map[string]*Session
	// closing holds the sessions whose last reference is being given up:
	// closed when their log is, so that no one reads it before.
	closing map[string]chan struct{}
	// replaced maps the ID of a session whose log was unreadable from its
	// first line to the session that took its place in this process: a
	// second look-up of the old ID (the server looks a command's session
	// up on the read loop and again in its handler) finds the new one
	// instead of "no such session" (issue 25).
	replaced map[string]string
}

// Open returns the store of the workspace root under stateDir, creating
// its directory (0700). An empty stateDir gives a store in memory.
func Open(stateDir, root string, opts *Options) (*Store, error) {
	st := &Store{root: filepath.Clean(root), live: map[string]*Session{}, closing: map[string]chan struct{}{}, replaced: map[string]string{}, limits: DefaultLimits, fsync: (*os.File).Sync, syncDelay: groupCommit,
		writeLog: (*os.File).Write}
	if opts != nil {
		st.log, st.warn = opts.Logger, opts.Warn
		if opts.Limits != nil {
			st.limits = *opts.Limits
		}
	}
	if st.log == nil {
		st.log = slog.New(slog.DiscardHandler)
	}
	if st.warn == nil {
		st.warn = func(string) {}
	}
	if stateDir == "" {
		return st, nil
	}
	st.dir = WorkspaceDir(stateDir, st.root)
	if err := mkdirPrivate(st.dir); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	// A note for people looking at the directory: which workspace it is.
	rootFile := filepath.Join(st.dir, "root")
	if _, err := os.Stat(rootFile); errors.Is(err, fs.ErrNotExist) {
		_ = os.WriteFile(rootFile, []byte(st.root+"\n"), 0o600)
	}
	return st, nil
}

// WorkspaceDir is the directory of the sessions of root under stateDir:
// sessions/ and the first 16 hex digits of the SHA-256 of the root's path.
func WorkspaceDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(stateDir, "sessions", hex.EncodeToString(sum[:8]))
}

// mkdirPrivate creates dir and its missing parents 0700, and makes dir
// itself 0700 if it existed with a looser mode.
func mkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// Dir is the store's directory; "" for a store in memory.
func (st *Store) Dir() string { return st.dir }

// Persistent reports whether sessions are kept on disk.
func (st *Store) Persistent() bool { return st.dir != "" }

// New starts a session, with one reference for the caller to
// [Session.Release].
func (st *Store) New() (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for range 10 {
		id := newID()
		if _, ok := st.live[id]; ok {
			continue
		}
		s, err := create(st, id)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s.refs = 1
		st.live[id] = s
		return s, nil
	}
	return nil, errors.New("session store: cannot pick a new session ID")
}

// Session returns the session with the given ID or unique ID prefix (at
// least 4 characters), loading it when no one in this process uses it,
// with one reference for the caller to [Session.Release]. A damaged file
// is recovered (see [Session.Recovery]); one with nothing readable gives a
// new session in its place, with the recovery saying so.
func (st *Store) Session(id string) (*Session, error) {
	st.mu.Lock()
	nid, took := st.replaced[id]
	st.mu.Unlock()
	if took {
		id = nid
	}
	full, err := st.resolve(id)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.waitClosedLocked(full)
	if s, ok := st.live[full]; ok {
		s.refs++
		return s, nil
	}
	s, err := load(st, full)
	if err != nil {
		return nil, err
	}
	if s.recovery != nil && s.recovery.Fresh {
		// Nothing of it was readable: a new session takes over.
		ns, err := create(st, newID())
		if err != nil {
			return nil, err
		}
		ns.recovery, ns.refs = s.recovery, 1
		st.live[ns.ID] = ns
		st.replaced[full] = ns.ID
		return ns, nil
	}
	s.refs = 1
	st.live[full] = s
	return s, nil
}

// Inspect reads the session with the given ID or unique prefix as it is
// on disk, without repairing a damaged log or starting a session in place
// of an unreadable one (listings, `agentls sessions show`). The returned
// session is a snapshot: it cannot begin runs.
func (st *Store) Inspect(id string) (*Session, error) {
	full, err := st.resolve(id)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	live, ok := st.live[full]
	st.mu.Unlock()
	if ok {
		return live, nil
	}
	if st.dir == "" {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	data, err := os.ReadFile(st.path(full))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", full, err)
	}
	s := &Session{ID: full, st: st, readOnly: true}
	_, rec := s.replay(data)
	if rec != nil {
		rec.From = full
	}
	s.recovery = rec
	if fi, err := os.Stat(st.path(full)); err == nil {
		s.updated = fi.ModTime().UTC()
	}
	return s, nil
}

// resolve turns an ID or unique prefix into a session ID.
func (st *Store) resolve(id string) (string, error) {
	id = strings.TrimSpace(id)
	if !validID(id) {
		return "", fmt.Errorf("%w: %q is not a session ID", ErrNotFound, id)
	}
	ids, err := st.ids()
	if err != nil {
		return "", err
	}
	var match []string
	for _, have := range ids {
		if have == id {
			return id, nil
		}
		if len(id) >= 4 && strings.HasPrefix(have, id) {
			match = append(match, have)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("%w: %s", ErrNotFound, id)
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("%w: %s matches %s", ErrAmbiguous, id, strings.Join(match, ", "))
}

// ids lists the sessions on disk and in memory.
func (st *Store) ids() ([]string, error) {
	st.mu.Lock()
	ids := make([]string, 0, len(st.live))
	for id := range st.live {
		ids = append(ids, id)
	}
	st.mu.Unlock()
	if st.dir == "" {
		return ids, nil
	}
	ents, err := os.ReadDir(st.dir)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && e.Type().IsRegular() && validID(id) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Latest returns the ID of the session used last (the one whose log
// changed last), or ErrNotFound when the workspace has none.
func (st *Store) Latest() (string, error) {
	infos, err := st.List()
	if err != nil {
		return "", err
	}
	if len(infos) == 0 {
		return "", fmt.Errorf("%w: this workspace has no sessions yet", ErrNotFound)
	}
	return infos[0].ID, nil
}

// List describes the workspace's sessions, the one used last first. A
// damaged session is listed with [Info.Damaged] set.
func (st *Store) List() ([]Info, error) {
	ids, err := st.ids()
	if err != nil {
		return nil, err
	}
	var out []Info
	buf := make([]byte, maxIndex)
	for _, id := range ids {
		st.mu.Lock()
		s, ok := st.live[id]
		st.mu.Unlock()
		var info Info
		if ok {
			info = s.Info()
		} else if info, err = st.listInfo(id, buf); err != nil {
			st.log.Warn("Session not listed", slog.String("session", id), slog.String("err", err.Error()))
			continue
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// path is the log file of session id.
func (st *Store) path(id string) string { return filepath.Join(st.dir, id+".jsonl") }

// idLen is the length of a session ID: 12 hex digits.
const idLen = 12

func newID() string {
	b := make([]byte, idLen/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// validID reports whether id can name a session file: hex digits only, so
// that no ID reaches outside the store's directory.
func validID(id string) bool {
	if id == "" || len(id) > idLen {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// RunID is the ID of run n of a session: "<session>-<n>".
func RunID(session string, n int) string { return session + "-" + strconv.Itoa(n) }

// ParseRunID splits a run ID into its session (ID or prefix) and number.
// A bare session ID has run 0: the caller picks one.
func ParseRunID(s string) (session string, n int, err error) {
	id, num, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !validID(id) {
		return "", 0, fmt.Errorf("%w: %q is not a run ID (want SESSION-N)", ErrNoRun, s)
	}
	if !ok {
		return id, 0, nil
	}
	n, err = strconv.Atoi(num)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%w: %q is not a run ID (want SESSION-N)", ErrNoRun, s)
	}
	return id, n, nil
}

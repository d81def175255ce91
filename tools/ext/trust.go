package ext

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Entry is one project extension the user may trust: a hook or an MCP
// server.
type Entry struct {
	Kind string `json:"kind"` // "hook" or "mcp"
	// Name is the server's name, or the hook's event.
	Name string `json:"name"`
	// Hash pins what the entry runs (A17, A18): for a server its
	// [mcp.ServerConfig.Pinned] settings (env values included); for a
	// hook its event, matcher, command, timeout and fail-closed settings;
	// for both, the content of every workspace file its words name (the
	// script a command runs, a server's entry file) and the start-up
	// files of every workspace directory they name (a PYTHONPATH
	// directory's sitecustomize.py). Any change asks again.
	Hash string `json:"hash"`
	// Pin is the format of Hash ([pinVersion]); a record of another
	// format is never trusted.
	Pin int `json:"pin,omitempty"`
	// ToolsHash pins a server's tool definitions; "" until the first start
	// after the user trusted its command.
	ToolsHash string `json:"tools_hash,omitempty"`
	// What the user reviews: the command line or URL, and the matcher.
	What    string `json:"what"`
	Matcher string `json:"matcher,omitempty"`
	// Env is a server's environment as NAME=value, and Files the
	// workspace files pinned, for the user to review (not kept in the
	// store: the hash covers them, and a value may be a token).
	Env   []string `json:"-"`
	Files []string `json:"-"`
	// Unpinnable says why the entry cannot be pinned (files too large,
	// too many): it is asked about every time.
	Unpinnable string `json:"-"`
}

// Status is where an entry stands with the user.
type Status int

// The statuses of an entry.
const (
	// Unknown: the user never trusted an entry like it.
	Unknown Status = iota
	// Changed: the user trusted the entry, but what it runs has changed
	// since (a file, a setting, or the format of the pin): not trusted.
	Changed
	// Trusted as it is now.
	Trusted
)

// same reports whether t and e are the same entry of the config, trusted
// or not: a server of the same name, or a hook of the same event,
// matcher and command.
func (t *Entry) same(e *Entry) bool {
	if t.Kind != e.Kind || t.Name != e.Name {
		return false
	}
	return t.Kind == "mcp" || t.Matcher == e.Matcher && t.What == e.What
}

// Store is the user's trust decisions, kept in one file in the state
// directory. It is safe for concurrent use within a process; concurrent
// processes may lose each other's last write, never corrupt the file.
type Store struct {
	path string
	mu   sync.Mutex // guards writes of the file
}

// trustFile is the store's format: per workspace root, the trusted entries.
type trustFile struct {
	Roots map[string][]Entry `json:"roots"`
}

// OpenStore returns the store at path ("" keeps no trust: nothing of a
// project is ever trusted).
func OpenStore(path string) *Store { return &Store{path: path} }

func (s *Store) read() (*trustFile, error) {
	f := &trustFile{Roots: map[string][]Entry{}}
	if s == nil || s.path == "" {
		return f, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %v", s.path, err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("trust store %s: %v", s.path, err)
	}
	if f.Roots == nil {
		f.Roots = map[string][]Entry{}
	}
	return f, nil
}

// Trusted returns the trusted entry of root matching e's kind, name and
// hash, if there is one.
func (s *Store) Trusted(root string, e Entry) (Entry, bool) {
	t, st := s.Lookup(root, e)
	return t, st == Trusted
}

// Lookup says whether e is trusted for root as it is now (and returns the
// record), changed since the user trusted it, or unknown. A record of an
// older pin format is changed, never trusted.
func (s *Store) Lookup(root string, e Entry) (Entry, Status) {
	f, err := s.read()
	if err != nil {
		return Entry{}, Unknown // an unreadable store trusts nothing
	}
	st := Unknown
	for _, t := range f.Roots[root] {
		if t.Kind == e.Kind && t.Name == e.Name && t.Hash == e.Hash && t.Pin == pinVersion && e.Unpinnable == "" {
			return t, Trusted
		}
		if t.same(&e) {
			st = Changed
		}
	}
	return Entry{}, st
}

// Trust records entries as trusted for root, replacing earlier decisions
// about the same entries (see [Entry.same]). An entry that cannot be
// pinned is not recorded.
func (s *Store) Trust(root string, entries ...Entry) error {
	entries = slices.DeleteFunc(slices.Clone(entries), func(e Entry) bool { return e.Unpinnable != "" })
	for i := range entries {
		entries[i].Pin = pinVersion
	}
	return s.update(root, func(old []Entry) []Entry {
		out := slices.DeleteFunc(old, func(t Entry) bool {
			return slices.ContainsFunc(entries, func(e Entry) bool { return e.Kind == t.Kind && e.Name == t.Name && e.Hash == t.Hash || t.same(&e) })
		})
		return append(out, entries...)
	})
}

// Revoke forgets every decision about root.
func (s *Store) Revoke(root string) error {
	return s.update(root, func([]Entry) []Entry { return nil })
}

func (s *Store) update(root string, f func([]Entry) []Entry) error {
	if s == nil || s.path == "" {
		return errors.New("no state directory to keep trust in (set HOME or XDG_STATE_HOME)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil {
		return err
	}
	if got := f(tf.Roots[root]); len(got) > 0 {
		tf.Roots[root] = got
	} else {
		delete(tf.Roots, root)
	}
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// describe is a command line for the user to review.
func describe(command string, args []string) string {
	parts := []string{command}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = fmt.Sprintf("%q", a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

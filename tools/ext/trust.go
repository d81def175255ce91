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
	// Hash pins what the entry runs: [mcp.ServerConfig.CommandHash] for a
	// server; for a hook its event, matcher, command, timeout and policy
	// flag.
	Hash string `json:"hash"`
	// ToolsHash pins a server's tool definitions; "" until the first start
	// after the user trusted its command.
	ToolsHash string `json:"tools_hash,omitempty"`
	// What the user reviews: the command line or URL, and the matcher.
	What    string `json:"what"`
	Matcher string `json:"matcher,omitempty"`
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
	f, err := s.read()
	if err != nil {
		return Entry{}, false // an unreadable store trusts nothing
	}
	for _, t := range f.Roots[root] {
		if t.Kind == e.Kind && t.Name == e.Name && t.Hash == e.Hash {
			return t, true
		}
	}
	return Entry{}, false
}

// Trust records entries as trusted for root, replacing earlier decisions
// about the same kind and name.
func (s *Store) Trust(root string, entries ...Entry) error {
	return s.update(root, func(old []Entry) []Entry {
		out := slices.DeleteFunc(old, func(t Entry) bool {
			return slices.ContainsFunc(entries, func(e Entry) bool { return e.Kind == t.Kind && e.Name == t.Name && e.Hash == t.Hash }) ||
				(t.Kind == "mcp" && slices.ContainsFunc(entries, func(e Entry) bool { return e.Kind == "mcp" && e.Name == t.Name }))
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

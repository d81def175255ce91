package watch

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder collects the paths a Watcher reports.
type recorder struct {
	mu    sync.Mutex
	paths []string
	wake  chan struct{}
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1000)} }

func (r *recorder) add(p string) {
	r.mu.Lock()
	r.paths = append(r.paths, p)
	r.mu.Unlock()
	r.wake <- struct{}{}
}

func (r *recorder) has(p string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.paths, p)
}

// waitFor waits until p was reported.
func (r *recorder) waitFor(t *testing.T, p string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for !r.has(p) {
		select {
		case <-r.wake:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("no event for %s; got %v", p, r.paths)
		}
	}
}

func tree(t *testing.T, dirs ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, root string, o *Options) *Watcher {
	t.Helper()
	w, err := New(root, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// E10: the workspace is watched recursively, new directories included,
// and the churning ones (.git/objects, node_modules) are not watched.
func TestWatch_E10_RecursiveSkipsChurn(t *testing.T) {
	root := tree(t, "src/deep", ".git/objects/ab", "node_modules/x", "web/node_modules/y")
	rec := newRecorder()
	w := start(t, root, &Options{OnChange: rec.add})
	// root, src, src/deep, .git, web: the skipped trees add nothing.
	if got := w.Dirs(); got != 5 {
		t.Errorf("watched %d directories, want 5 (root, src, src/deep, .git, web)", got)
	}
	if w.Full() {
		t.Error("Full with a small tree")
	}

	write(t, filepath.Join(root, "node_modules", "x", "a.js"), "x")
	write(t, filepath.Join(root, ".git", "objects", "ab", "obj"), "x")
	deep := filepath.Join(root, "src", "deep", "a.go")
	write(t, deep, "package a")
	rec.waitFor(t, deep)

	// A directory created after the start is watched too.
	newDir := filepath.Join(root, "src", "new")
	if err := os.Mkdir(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, newDir)
	inNew := filepath.Join(newDir, "b.go")
	write(t, inNew, "package b")
	rec.waitFor(t, inNew)

	for _, p := range []string{filepath.Join(root, "node_modules", "x", "a.js"), filepath.Join(root, ".git", "objects", "ab", "obj")} {
		if rec.has(p) {
			t.Errorf("event for %s, which lies in a skipped directory", p)
		}
	}
}

// E10: the number of watched directories is bounded, and a watch that
// hit the bound says so.
func TestWatch_E10_Bounded(t *testing.T) {
	root := tree(t, "a", "b", "c", "d", "e")
	w := start(t, root, &Options{MaxDirs: 3})
	if got := w.Dirs(); got != 3 {
		t.Errorf("watched %d directories, want the bound 3", got)
	}
	if !w.Full() {
		t.Error("Full is false although directories were left out")
	}
}

// E10: a file outside the root (the user's policy) is watched by name; its
// neighbours are not reported.
func TestWatch_E10_ExtraFiles(t *testing.T) {
	root := tree(t)
	cfg := t.TempDir()
	policy := filepath.Join(cfg, "policy.json")
	write(t, policy, "{}")
	rec := newRecorder()
	start(t, root, &Options{OnChange: rec.add, Files: []string{policy}})
	other := filepath.Join(cfg, "other.json")
	write(t, other, "{}")
	write(t, policy, `{"deny":["run_command"]}`)
	rec.waitFor(t, policy)
	if rec.has(other) {
		t.Errorf("event for %s, which is not a watched file", other)
	}
}

// Removing and renaming directories reports them and drops their watches.
func TestWatch_E10_RemoveRename(t *testing.T) {
	root := tree(t, "a/b", "c")
	rec := newRecorder()
	w := start(t, root, &Options{OnChange: rec.add})
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, filepath.Join(root, "a"))
	if err := os.RemoveAll(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, filepath.Join(root, "c"))
	// root and the moved tree (re-added under its new name: moved, moved/b).
	deadline := time.Now().Add(5 * time.Second)
	for w.Dirs() != 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := w.Dirs(); got != 3 {
		t.Errorf("watched %d directories after rename and removal, want 3 (root, moved, moved/b)", got)
	}
}

func TestSkip(t *testing.T) {
	for rel, want := range map[string]bool{
		".git/objects": true, ".git": false, "node_modules": true, "web/node_modules": true,
		"src": false, ".agentls": false, ".agentls/results": true, "a/__pycache__": true,
	} {
		if got := Skip(rel); got != want {
			t.Errorf("Skip(%q) = %v, want %v", rel, got, want)
		}
	}
}

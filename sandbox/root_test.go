package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

func openFixtureRoot(t *testing.T) (sandboxtest.Fixture, *Root) {
	t.Helper()
	fx := sandboxtest.NewFixture(t)
	r, err := OpenRoot(fx.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return fx, r
}

// noBlock fails the test if fn does not return within a few seconds: a
// FIFO open that blocks would hang the suite otherwise.
func noBlock(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("call blocked")
	}
}

func TestRoot_ReadFile(t *testing.T) {
	fx, r := openFixtureRoot(t)
	apply(t, fx, setupOp{Op: "mkfifo", Path: "fifo"}, sl("out", "{{OUTSIDE}}/secret.txt"),
		sl("zero", "/dev/zero"), sl("in", "src/main.go"), sl("absin", "{{ROOT}}/src/main.go"))
	cases := []struct {
		name, rel string
		max       int64
		want      string
		err       error // checked with errors.Is when set
	}{
		{name: "regular", rel: "src/main.go", max: 100, want: "package main\n"},
		{name: "no limit", rel: "src/main.go", want: "package main\n"},
		{name: "exact limit", rel: "src/main.go", max: 13, want: "package main\n"},
		{name: "too large", rel: "src/main.go", max: 5, err: ErrTooLarge},
		{name: "relative symlink inside", rel: "in", want: "package main\n"},
		{name: "FIFO does not block", rel: "fifo", max: 100, err: ErrNotRegular},
		{name: "directory", rel: "src", err: ErrNotRegular},
		{name: "missing", rel: "nope", err: fs.ErrNotExist},
		{name: "symlink outside", rel: "out"},
		{name: "symlink to device", rel: "zero"},
		{name: "absolute symlink", rel: "absin"},
		{name: "dotdot", rel: "../outside/secret.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []byte
			var err error
			noBlock(t, func() { got, err = r.ReadFile(c.rel, c.max) })
			if c.want != "" {
				if err != nil || string(got) != c.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ReadFile(%q) = %q; want error", c.rel, got)
			}
			if c.err != nil && !errors.Is(err, c.err) {
				t.Fatalf("error %v; want %v", err, c.err)
			}
			if strings.Contains(err.Error(), fx.Outside) {
				t.Errorf("error leaks the outside path: %v", err)
			}
		})
	}
}

func TestRoot_ReadDirAndStat(t *testing.T) {
	fx, r := openFixtureRoot(t)
	apply(t, fx, setupOp{Op: "mkfifo", Path: "fifo"}, sl("outdir", "{{OUTSIDE}}"))
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, "docs/b.md"), "b")
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, "docs/a.md"), "a")
	ents, err := r.ReadDir("docs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "a.md,b.md,sub" {
		t.Errorf("ReadDir(docs) = %s; want sorted a.md,b.md,sub", got)
	}
	noBlock(t, func() { _, err = r.ReadDir("fifo") })
	if err == nil {
		t.Error("ReadDir(fifo) succeeded")
	}
	if _, err := r.ReadDir("outdir"); err == nil {
		t.Error("ReadDir through a symlink to outside succeeded")
	}
	if _, err := r.ReadDir("README.md"); err == nil {
		t.Error("ReadDir of a file succeeded")
	}
	if fi, err := r.Stat("src/main.go"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Stat(src/main.go) = %v, %v", fi, err)
	}
	if fi, err := r.Lstat("outdir"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(outdir) = %v, %v; want the link itself", fi, err)
	}
	if _, err := r.Stat("outdir"); err == nil {
		t.Error("Stat through a symlink to outside succeeded")
	}
}

func TestRoot_WriteFileAtomic(t *testing.T) {
	fx, r := openFixtureRoot(t)
	// New file in new directories.
	if err := r.WriteFileAtomic("a/b/c.txt", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkFile(t, filepath.Join(fx.Root, "a/b/c.txt"), "new", 0o600)
	// Replace keeps the mode of the existing file.
	script := filepath.Join(fx.Root, "run.sh")
	sandboxtest.MustWrite(t, script, "old")
	if err := os.Chmod(script, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFileAtomic("run.sh", []byte("replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkFile(t, script, "replaced", 0o751)
	// No temporary file is left behind.
	ents, _ := os.ReadDir(fx.Root)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".agentls-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// Refusals: outside, the root itself, a directory, a FIFO.
	apply(t, fx, setupOp{Op: "mkfifo", Path: "fifo"})
	for _, rel := range []string{"../outside/x.txt", ".", "", "src", "fifo"} {
		var err error
		noBlock(t, func() { err = r.WriteFileAtomic(rel, []byte("x"), 0o644) })
		if err == nil {
			t.Errorf("WriteFileAtomic(%q) succeeded", rel)
		}
	}
	if _, err := os.Stat(filepath.Join(fx.Outside, "x.txt")); err == nil {
		t.Error("a file was created outside")
	}
}

// TestRoot_T4_SwappedSymlink: a path that ResolvePath accepted becomes an
// escape when a directory is swapped for a symlink afterwards (TOCTOU); the
// Root still refuses it at use time.
func TestRoot_T4_SwappedSymlink(t *testing.T) {
	for _, target := range []string{"{{OUTSIDE}}", "../outside"} {
		t.Run(target, func(t *testing.T) {
			fx, r := openFixtureRoot(t)
			sandboxtest.MustWrite(t, filepath.Join(fx.Root, "docs/notes.txt"), "notes")
			sandboxtest.MustWrite(t, filepath.Join(fx.Outside, "notes.txt"), "OUTSIDE NOTES")
			for _, p := range []string{"docs/notes.txt", "docs/new.txt"} {
				if _, err := ResolvePath(fx.Root, p); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.RemoveAll(filepath.Join(fx.Root, "docs")); err != nil {
				t.Fatal(err)
			}
			apply(t, fx, sl("docs", target))
			if b, err := r.ReadFile("docs/notes.txt", 0); err == nil {
				t.Errorf("ReadFile escaped: %q", b)
			}
			if _, err := r.ReadDir("docs"); err == nil {
				t.Error("ReadDir escaped")
			}
			if err := r.WriteFileAtomic("docs/new.txt", []byte("pwned"), 0o644); err == nil {
				t.Error("WriteFileAtomic escaped")
			}
			if err := r.WriteFileAtomic("docs/notes.txt", []byte("pwned"), 0o644); err == nil {
				t.Error("WriteFileAtomic replaced a file outside")
			}
			if _, err := os.Stat(filepath.Join(fx.Outside, "new.txt")); err == nil {
				t.Error("file created outside")
			}
			checkFile(t, filepath.Join(fx.Outside, "notes.txt"), "OUTSIDE NOTES", 0)
		})
	}
}

// checkFile checks content and, unless perm is 0, the permission bits.
func checkFile(t *testing.T, name, want string, perm fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil || !bytes.Equal(b, []byte(want)) {
		t.Fatalf("%s = %q, %v; want %q", filepath.Base(name), b, err, want)
	}
	if perm == 0 {
		return
	}
	fi, err := os.Stat(name)
	if err != nil || fi.Mode().Perm() != perm {
		t.Errorf("%s mode = %v; want %v", filepath.Base(name), fi.Mode().Perm(), perm)
	}
}

// S9: a stage or temp dir a command left without permissions is still
// removed whole.
func TestRemoveTree_S9_Unwritable(t *testing.T) {
	d := filepath.Join(t.TempDir(), "tree")
	os.MkdirAll(filepath.Join(d, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(d, "a", "b", "f"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(d, "a", "b"), 0)
	os.Chmod(filepath.Join(d, "a"), 0o500)
	if err := RemoveTree(d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(d); err == nil {
		t.Error("the tree is still there")
	}
}

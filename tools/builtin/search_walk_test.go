package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Buffered makes the harness's fake a workspace that tells search which
// files have an open buffer (the overlay): search reads every other file
// from the disk itself, as it does with tools.DiskWorkspace.
func (w *fakeWorkspace) Buffered(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.overlay[rel]
	return ok
}

// plainWorkspace hides Buffered: a workspace that cannot say which files
// it holds.
type plainWorkspace struct{ w *fakeWorkspace }

func (p plainWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	return p.w.ReadFile(ctx, rel)
}

// TestSearch_B1_BeyondTwentyThousandFiles: the old walk stopped at 20,000
// files, silently; a match in the last file of a larger tree is found.
func TestSearch_B1_BeyondTwentyThousandFiles(t *testing.T) {
	h := newHarness(t)
	for d := range 101 {
		for f := range 200 {
			name := filepath.Join(h.root, "tree", fmt.Sprintf("d%03d", d), fmt.Sprintf("f%03d.txt", f))
			if f == 0 {
				os.MkdirAll(filepath.Dir(name), 0o755)
			}
			content := "nothing here\n"
			if d == 100 && f == 199 {
				content = "line one\nNEEDLE at the end\n"
			}
			if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := wantOK(t, h.call(t, "search", `{"pattern":"NEEDLE","path":"tree"}`))
	if got != "tree/d100/f199.txt:2: NEEDLE at the end" {
		t.Errorf("search over 20,200 files = %q", got)
	}
}

// TestSearch_B1_BuffersAndDisk: files with an open buffer are read through
// the workspace (their unsaved text counts); the others are read from the
// disk without asking it. A workspace that cannot say which files it
// holds is asked for every file.
func TestSearch_B1_BuffersAndDisk(t *testing.T) {
	h := newHarness(t)
	h.write(t, "a.txt", "TOKEN on disk\n")
	h.write(t, "b.txt", "old text\n")
	h.ws.overlay["b.txt"] = "TOKEN unsaved\n"
	want := "a.txt:1: TOKEN on disk\nb.txt:1: TOKEN unsaved"
	if got := wantOK(t, h.call(t, "search", `{"pattern":"TOKEN"}`)); got != want {
		t.Errorf("search = %q, want %q", got, want)
	}
	if !slices.Equal(h.ws.reads, []string{"b.txt"}) {
		t.Errorf("workspace reads = %q; want only the buffered b.txt", h.ws.reads)
	}
	h.ws.reads = nil
	env := h.env()
	env.Workspace = plainWorkspace{h.ws}
	res, err := newGateway(h.reg, env, allTools).Call(t.Context(), "search", `{"pattern":"TOKEN"}`)
	if err != nil || wantOK(t, res) != want {
		t.Errorf("search through a plain workspace = %q, %v", res.Content, err)
	}
	slices.Sort(h.ws.reads)
	if !slices.Equal(h.ws.reads, []string{"README.md", "a.txt", "b.txt", "src/main.go"}) {
		t.Errorf("plain workspace reads = %q; want every file", h.ws.reads)
	}
}

// TestSearch_B1_SymlinksOutsideRefused: with the directory-handle walk, a
// symlink to a file or directory outside the workspace is still not
// followed, a symlink to a file inside is, and a symlinked directory is
// not entered.
func TestSearch_B1_SymlinksOutsideRefused(t *testing.T) {
	h := newHarness(t)
	h.write(t, "in/inside.txt", "token inside\n")
	h.symlink(t, "out-dir", "{{OUTSIDE}}")
	h.symlink(t, "in/out-file.txt", "{{OUTSIDE}}/secret.txt")
	h.symlink(t, "in/up.txt", "../in/inside.txt")
	h.symlink(t, "in-dir", "in")
	got := wantOK(t, h.call(t, "search", `{"pattern":"token"}`))
	want := "in/inside.txt:1: token inside\nin/up.txt:1: token inside"
	if got != want {
		t.Errorf("search = %q, want %q", got, want)
	}
}

// TestSearch_B1_SwappedForSymlinkNotFollowed: a directory, and a file,
// swapped for a symlink to the outside after the walk listed them are not
// followed: children are opened relative to their parent with
// O_NOFOLLOW (O_DIRECTORY for directories).
func TestSearch_B1_SwappedForSymlinkNotFollowed(t *testing.T) {
	h := newHarness(t)
	h.write(t, "a/sub/x.txt", "token in a\n")
	h.write(t, "b/f.txt", "token in b\n")
	h.write(t, "c.txt", "token in c\n")
	writeFile(t, filepath.Join(h.outside, "dir", "y.txt"), "TOP SECRET token\n")
	searchWalkHook = func(dir string) {
		swap := map[string][2]string{".": {"c.txt", "secret.txt"}, "a": {"sub", "dir"}}[dir]
		if swap[0] == "" {
			return
		}
		p := filepath.Join(h.root, filepath.FromSlash(dir), swap[0])
		if err := os.RemoveAll(p); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(h.outside, swap[1]), p); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { searchWalkHook = nil })
	got := wantOK(t, h.call(t, "search", `{"pattern":"token"}`))
	if got != "b/f.txt:1: token in b" {
		t.Errorf("search = %q; want only b/f.txt", got)
	}
}

// TestSearch_B1_CredentialFilesSkipped: the walk does not read files that
// may hold credentials, at any depth, and says how many it left out.
func TestSearch_B1_CredentialFilesSkipped(t *testing.T) {
	h := newHarness(t)
	for _, p := range []string{".env", "deep/er/.env.local", "certs/server.pem", "home/.ssh/config", "keys/id_work"} {
		h.write(t, p, "TOKEN=ghp_secret\n")
	}
	h.write(t, "ok.txt", "TOKEN=public\n")
	h.symlink(t, "alias.txt", "certs/server.pem")
	got := wantOK(t, h.call(t, "search", `{"pattern":"TOKEN"}`))
	want := "ok.txt:1: TOKEN=public\n(6 files that may hold credentials were not searched; name one as path to ask the user)"
	if got != want {
		t.Errorf("search = %q, want %q", got, want)
	}
	if strings.Contains(strings.Join(h.ws.reads, " "), "secret") {
		t.Errorf("workspace reads: %q", h.ws.reads)
	}
}

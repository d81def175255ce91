//go:build unix

package lspserver

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// A16, S9, E15, issue 21: revertGuard refuses every path that is not
// clean, names a control file at any depth in any letter case, or leads
// through a symlink, a non-directory, to a symlink, a non-regular file or
// a file with another hard link; it lets ordinary paths through, also
// ones whose directories do not exist (any more).
func TestRevertGuard_A16_S9_Paths(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".git", "docs/real", "plain"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/HEAD", "docs/real/a.txt", "file", "linked"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"docs/notes": "../.git", "docs/real/b.txt": "a.txt", "out": "/etc", "plain/dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "linked"), filepath.Join(dir, "plain/hardlink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "plain/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := sandbox.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cases := []struct{ rel, want string }{
		{"docs/real/a.txt", ""},
		{"docs/real/new.txt", ""},
		{"gone/deeper/new.txt", ""},
		{"file", ""},
		{"docs/notes/HEAD", "refused: docs/notes/HEAD leads through a symlink (docs/notes); not restored"},
		{"docs/notes", "refused: docs/notes is a symlink; not restored"},
		{"docs/real/b.txt", "is a symlink"},
		{"out/passwd", "leads through a symlink (out)"},
		{"plain/dangling", "is a symlink"},
		{"file/x", "leads through file, which is not a directory"},
		{"docs/real", "is not a regular file"},
		{"plain/fifo", "is not a regular file"},
		{"plain/hardlink", "has 2 hard links"},
		{".git/HEAD", "refused: .git/HEAD is a control path (.git); not restored"},
		{"sub/.GIT/config", "is a control path (.git)"},
		{"docs/.vscode/tasks.json", "is a control path (.vscode)"},
		{".Agentls/policy.json", "is a control path (.agentls)"},
		{"a/b/.envrc", "is a control path (.envrc)"},
		{"", "is not a path inside the workspace"},
		{"/etc/passwd", "is not a path inside the workspace"},
		{"../x", "is not a path inside the workspace"},
		{"docs/../.git/HEAD", "is not a path inside the workspace"},
		{"docs//real/a.txt", "is not a path inside the workspace"},
		{"./file", "is not a path inside the workspace"},
		{`docs\notes\HEAD`, "is not a path inside the workspace"},
	}
	for _, c := range cases {
		err := revertGuard(root, c.rel)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.rel, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "refused: ")):
			t.Errorf("%q: %v, want %q", c.rel, err, c.want)
		}
	}
}

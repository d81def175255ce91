//go:build unix

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDir_B1_NoFollow: a Dir opens children relative to itself and never
// through a symlink (to the outside or inside), reads only regular files
// (a FIFO does not block), refuses names that are not one component, and
// refuses files over the limit before reading them.
func TestDir_B1_NoFollow(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for name, content := range map[string]string{"ws/a/f.txt": "hello\n", "ws/big.txt": strings.Repeat("x", 100), "outside/s.txt": "secret\n"} {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink("a", filepath.Join(root, "in"))
	os.Symlink(filepath.Join(outside, "s.txt"), filepath.Join(root, "a", "link.txt"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range []string{"out", "in", "..", "a/..", "big.txt"} {
		if sub, err := d.OpenDir(name); err == nil {
			sub.Close()
			t.Errorf("OpenDir(%q) succeeded", name)
		}
	}
	for _, rel := range []string{"out", "in", "in/x", "a/link.txt"} {
		if sub, err := OpenDir(root, rel); err == nil {
			sub.Close()
			t.Errorf("OpenDir(root, %q) succeeded", rel)
		}
	}
	a, err := d.OpenDir("a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if b, err := a.ReadFile("f.txt", 1<<20, nil); err != nil || string(b) != "hello\n" {
		t.Errorf("ReadFile(f.txt) = %q, %v", b, err)
	}
	if _, err := a.ReadFile("link.txt", 1<<20, nil); err == nil {
		t.Error("ReadFile followed a symlink out")
	}
	if _, err := d.ReadFile("fifo", 1<<20, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(fifo) = %v; want ErrNotRegular", err)
	}
	if _, err := d.ReadFile("big.txt", 99, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the limit = %v; want ErrTooLarge", err)
	}
	if _, err := d.ReadFile("a/f.txt", 1<<20, nil); err == nil {
		t.Error("ReadFile took a path of two components")
	}
	ents, err := a.Entries()
	if err != nil || len(ents) != 2 || ents[0].Name() != "f.txt" || ents[1].Type()&os.ModeSymlink == 0 {
		t.Errorf("Entries = %v, %v", ents, err)
	}
}

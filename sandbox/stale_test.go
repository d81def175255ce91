package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A11, #12 item 10: only our own stale temporary files go: exactly the
// name WriteFileAtomic gives them, regular files, older than the given
// start, outside .git. Nothing else is touched.
func TestRoot_A11_RemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	files := map[string]time.Time{
		"src/.a.go.agentls-ABCDEFGHIJKL":  old,        // ours, stale: removed
		".b.txt.agentls-Z2Z3Z4Z5Z6Z7":     old,        // ours, stale: removed
		"src/.c.go.agentls-MNOPQRSTUVWX":  time.Now(), // a write in progress
		"src/.a.go.agentls-abcdefghijkl":  old,        // not our alphabet
		"src/a.go.agentls-ABCDEFGHIJKL":   old,        // no leading dot
		"src/.a.go.agentls-ABCDEFGHIJK":   old,        // 11 characters
		".git/.x.agentls-ABCDEFGHIJKL":    old,        // inside .git
		"src/.a.go.agentls-ABCDEFGHIJKL~": old,        // a suffix
	}
	for name, mt := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".d.agentls-ABCDEFGHIJKL"), 0o755); err != nil { // a directory
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, ".e.agentls-ABCDEFGHIJKL")); err != nil { // a symlink
		t.Fatal(err)
	}
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	removed, err := r.RemoveStaleTemps(t.Context(), time.Now().Add(-time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{".b.txt.agentls-Z2Z3Z4Z5Z6Z7", "src/.a.go.agentls-ABCDEFGHIJKL"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for name := range files {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if gone := os.IsNotExist(err); gone != slices.Contains(removed, name) {
			t.Errorf("%s: gone %v", name, gone)
		}
	}
	if _, err := r.RemoveStaleTemps(t.Context(), time.Now(), 3); err != ErrWalkLimit {
		t.Errorf("with a limit of 3 entries: %v, want ErrWalkLimit", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.RemoveStaleTemps(ctx, time.Now(), 0); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// A11, #12 item 10: a process killed (SIGKILL) in the middle of
// WriteFileAtomic leaves the old or the new file and, on Linux, no
// temporary file: the data is written to an unnamed file that is named
// only once complete. Before, 1 kill in 17 left a full-size .agentls-*
// file in the workspace; with named temporary files, nearly every kill
// leaves one.
func TestRoot_A11_KillMidWriteLeavesNoTemp(t *testing.T) {
	if dir := os.Getenv("AGENTLS_TEST_WRITE_LOOP"); dir != "" {
		r, err := OpenRoot(dir)
		if err != nil {
			os.Exit(2)
		}
		data := bytes.Repeat([]byte("new content "), 32<<20/12)
		os.WriteFile(filepath.Join(dir, "started"), nil, 0o644)
		for {
			if err := r.WriteFileAtomic("big.txt", data, 0o644); err != nil {
				os.Exit(3)
			}
		}
	}
	if testing.Short() {
		t.Skip("kills writer processes")
	}
	dir := t.TempDir()
	old := []byte("old content")
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	left := 0
	for trial := range 12 {
		os.Remove(filepath.Join(dir, "started"))
		cmd := exec.Command(os.Args[0], "-test.run=^TestRoot_A11_KillMidWriteLeavesNoTemp$")
		cmd.Env = append(os.Environ(), "AGENTLS_TEST_WRITE_LOOP="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 500; i++ { // the writer is running
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(20+trial*13) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !strings.Contains(e.Name(), ".agentls-") {
				continue
			}
			// Only the instant between linkat and renameat can leave a
			// name, and then the complete new file under our temp name,
			// which the next start removes. Stop 34's CI hit that instant
			// once; a named temporary file is left on nearly every kill.
			left++
			p := filepath.Join(dir, e.Name())
			if got, _ := os.ReadFile(p); len(got) != 32<<20/12*12 || !tempPattern().MatchString(e.Name()) {
				t.Fatalf("trial %d: the kill left %s, %d bytes: not a complete temp file", trial, e.Name(), len(got))
			}
			os.Remove(p)
		}
		if left > 1 {
			t.Fatalf("trial %d: %d kills of %d left a temporary file", trial, left, trial+1)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "big.txt"))
		if !bytes.Equal(got, old) && !bytes.HasPrefix(got, []byte("new content ")) {
			t.Fatalf("trial %d: big.txt is neither old nor new (%d bytes)", trial, len(got))
		}
	}
}

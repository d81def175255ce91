//go:build unix

package builtin

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWorkspaceHasSQLite_I16_FIFO: a FIFO named like a database is not
// opened for reading in a way that blocks, and does not count.
func TestWorkspaceHasSQLite_I16_FIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { done <- WorkspaceHasSQLite(root) }()
	select {
	case got := <-done:
		if got {
			t.Error("a FIFO counted as a SQLite file")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the probe blocked on a FIFO")
	}
}

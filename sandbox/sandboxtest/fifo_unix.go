//go:build unix

package sandboxtest

import (
	"syscall"
	"testing"
)

// Mkfifo creates a named pipe at path, or fails the test.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

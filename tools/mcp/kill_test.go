package mcp

import (
	"syscall"
	"testing"
)

func killGroup(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatal("no process group")
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
)

// A16, issue 25: `agentls revert` exits with the run codes — 0 when every
// file was restored, 3 when it left a file that changed since as it is.
func TestRevert_A16_Issue25_StaleExits3(t *testing.T) {
	bin := agentlsLink(t)
	ws := t.TempDir()
	a := filepath.Join(ws, "a.go")
	if err := os.WriteFile(a, []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := scriptedModel(t,
		`{"tool_calls":[{"id":"w","name":"write_file","arguments":{"path":"a.go","content":"package a\n\nfunc B() {}\n"}}]}`,
		`{"content":"ok"}`)
	env := modelEnv(t, model)
	run := func(args ...string) (int, string) {
		cmd := osexec.Command(bin, args...)
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ws, env, &out, &out
		_ = cmd.Run()
		return cmd.ProcessState.ExitCode(), out.String()
	}
	if code, out := run("exec", "--approve=all", "rename A"); code != 0 {
		t.Fatalf("exec: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(a, []byte("package a\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run("revert"); code != 3 {
		t.Errorf("revert of a file changed since: exit %d, want 3\n%s", code, out)
	}
}

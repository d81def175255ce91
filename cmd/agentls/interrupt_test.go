package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

// E17 (#13): Ctrl-C (SIGINT to the real binary, caught by
// signal.NotifyContext in main) cancels a headless run cleanly wherever it
// is: at an approval prompt nobody answers (the file the command would
// write is not written), and while a command runs (the command's processes
// are gone when agentls exits). Either way agentls exits 1 within seconds.
func TestInterrupt_E17(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildAgentls(t)
	for _, tt := range []struct {
		name    string
		command string // run_command's command
		waitFor string // on stderr, before Ctrl-C
		process string // a process whose command line has this runs before Ctrl-C
		check   func(t *testing.T, ws string)
	}{
		{"at the approval prompt", "echo hi > out.txt", "choice (number", "", func(t *testing.T, ws string) {
			if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
				t.Error("out.txt was written although the run was cancelled at its approval")
			}
		}},
		{"while a command runs", "sleep 31.337", "turn 1: run_command", "31.337", func(t *testing.T, _ string) {
			if pids := processesWith("31.337"); len(pids) > 0 {
				t.Errorf("the command outlived agentls: pids %v", pids)
				for _, p := range pids {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := fmt.Sprintf(`{"tool_calls":[{"name":"run_command","arguments":{"command":%q}}]}`+"\n"+`{"content":"never reached"}`, tt.command)
			s, err := llmtest.ParseScript([]byte(script))
			if err != nil {
				t.Fatal(err)
			}
			model := llmtest.NewServer(s)
			defer model.Close()
			ws := t.TempDir()
			cmd := exec.Command(bin, "exec", "--approve=ask", "do it")
			cmd.Dir = ws
			cmd.Env = modelEnv(t, model)
			stdin, err := cmd.StdinPipe() // the terminal: nobody types
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(stderr.String(), tt.waitFor) {
				if time.Now().After(deadline) {
					t.Fatalf("no %q on stderr:\n%s", tt.waitFor, stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			for tt.process != "" && len(processesWith(tt.process)) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the command %q never ran:\n%s", tt.command, stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := cmd.ProcessState.ExitCode(); code != 1 {
					t.Errorf("exit code %d (%v), want 1 (cancelled)\n%s", code, err, stderr.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("agentls did not exit within 5 s of Ctrl-C:\n%s", stderr.String())
			}
			tt.check(t, ws)
		})
	}
}

// processesWith returns the PIDs whose command line contains s.
func processesWith(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// lockedBuffer is a bytes.Buffer for a process's output read while it runs.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package lspserver_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/headless"
)

// syncBuffer is a bytes.Buffer safe for the client's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// E17 (#13): Ctrl-C at a prompt of the headless client (the run's context
// is signal.NotifyContext's in main) ends the run at once, without waiting
// for Enter, and writes nothing: neither at the first hunk's prompt nor at
// the second's after the first was approved (no half-applied edit), and
// no temporary file is left.
func TestHeadless_E17_CancelAtPrompt(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answers string // typed before the prompt at which Ctrl-C comes
		prompts int    // Ctrl-C at this prompt
	}{
		{"first hunk", "", 1},
		{"second hunk after approving the first", "1\n", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(twoFuncs), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := llmtest.ParseScript([]byte(editScript))
			if err != nil {
				t.Fatal(err)
			}
			llm := llmtest.NewServer(s)
			defer llm.Close()
			// The terminal: the answers, then nothing (the user does not press Enter).
			stdin, typing := io.Pipe()
			defer typing.Close()
			go func() { _, _ = io.WriteString(typing, tt.answers) }()
			var stderr, stdout syncBuffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := headless.Run(ctx, &headless.Options{
					Mode: agent.ModeExecute, Instruction: "bigger numbers", Dir: dir, File: "a.go",
					Approve: headless.ApproveAsk, Stdin: stdin, Stdout: &stdout, Stderr: &stderr,
					Server: &lspserver.Options{NewModel: newModelFunc(llm.URL)},
				})
				done <- err
			}()
			deadline := time.Now().Add(wait)
			for strings.Count(stderr.String(), "choice (number") < tt.prompts {
				if time.Now().After(deadline) {
					t.Fatalf("no prompt %d:\n%s%s", tt.prompts, stdout.String(), stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel() // Ctrl-C
			select {
			case <-done:
			case <-time.After(3 * time.Second): // the server drain waits 5 s for a client that stopped reading
				t.Fatalf("the run did not end within 3 s of Ctrl-C at a prompt:\n%s", stderr.String())
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(got) != twoFuncs {
				t.Errorf("a.go changed although the run was cancelled at a prompt:\n%s", got)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "a.go" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			if !strings.Contains(stderr.String(), "cancelled") {
				t.Errorf("the terminal does not say the run was cancelled:\n%s", stderr.String())
			}
		})
	}
}

package lspserver_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// prompt bounds how fast a cancellation must end a run.
const prompt = 3 * time.Second

// E7/E8: the client disconnects while the server waits on a
// showMessageRequest: Serve returns promptly (the run is stopped rather
// than left talking to the model), no goroutine is left (TestMain), and
// no file is touched.
func TestServer_E7_DisconnectMidQuestion(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"return 1 }","new_text":"return 10 }"}]}}]}`,
		// Were the run to go on after the disconnect, its next model turn
		// would take 8 s.
		`{"delay_ms":8000,"content":"done"}`,
	}, "\n")
	h := start(t, setup{
		script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(false, true, true),
		handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.NeverAnswer},
	})
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{
		"command": command.Execute, "arguments": []any{execArg(h)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.WaitFor(wait, "window/showMessageRequest", nil); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(h.path("a.go"))
	start := time.Now()
	if err := h.c.Close(); err != nil {
		skipBug(t, "after the client disconnects, Serve waits for the run to finish talking to the model: "+err.Error())
		t.Fatal(err)
	}
	if d := time.Since(start); d > prompt {
		skipBug(t, "after the client disconnects, the run goes on (next model turn) and Serve returns only after "+d.String())
		t.Errorf("Serve returned %v after the disconnect", d)
	}
	if _, err := p.Result(); err == nil {
		t.Error("the command succeeded on a closed connection")
	}
	if got := h.read("a.go"); got != twoFuncs {
		t.Errorf("a.go changed: %q", got)
	}
	if info2, _ := os.Stat(h.path("a.go")); info != nil && info2 != nil && !info2.ModTime().Equal(info.ModTime()) {
		t.Error("a.go was rewritten")
	}
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit", n)
	}
}

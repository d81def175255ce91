package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// sleeping reports whether a process with the marker in its command line
// still runs.
func sleeping(marker string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			return true
		}
	}
	return false
}

// TestACP_E20_CancelStopsCommand: session/cancel while an approved
// command runs stops it (it never reaches its second half, no process is
// left), the tool call ends failed, and the prompt answers cancelled.
func TestACP_E20_CancelStopsCommand(t *testing.T) {
	const marker = "31.4159"
	f := start(t, setup{script: `
{"tool_calls":[{"name":"run_command","arguments":{"command":"sleep 31.4159 && touch late.txt","timeout_ms":120000}}]}
{"content":"never"}
`})
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "allow_once" }
	sid := f.newSession("")
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := f.prompt(sid, "wait a bit")
		got <- answer{resp, err}
	}()
	f.cl.waitFor(t, "command in progress", func(us []sdk.SessionUpdate) bool {
		for _, u := range us {
			if c := u.ToolCallUpdate; c != nil && c.Status != nil && *c.Status == sdk.ToolCallStatusInProgress {
				return true
			}
		}
		return false
	})
	if err := f.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.err != nil || a.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want stopReason cancelled", a.resp, a.err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "late.txt")); err == nil {
		t.Error("the cancelled command ran on")
	}
	if sleeping(marker) {
		t.Error("the cancelled command's process is still there")
	}
	us, _ := f.cl.snapshot()
	_, calls := toolCalls(us)
	for _, c := range calls {
		if last := c.statuses[len(c.statuses)-1]; last != sdk.ToolCallStatusFailed {
			t.Errorf("cancelled call %q ends %s, want failed", c.title, last)
		}
	}
}

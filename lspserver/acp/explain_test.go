package acp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACP_Issue28_RejectAndSayWhy: a permission request carries no text
// back, so a hunk's question offers "Skip, and tell the agent why". The
// user picks it on the first of two hunks: nothing lands, the second hunk
// is not asked, a command the model then tries is declined without a
// question (the model is told to end its turn), and the user's next
// prompt reaches the model as the reason for that hunk.
func TestACP_Issue28_RejectAndSayWhy(t *testing.T) {
	f := start(t, setup{files: map[string]string{"p.go": twoHunksOld}, script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"p.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"p.go","content":"package p\n\nfunc A() int { return 10 }\n\n// middle\n// middle\n// middle\n// middle\n\nfunc B() int { return 20 }\n"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"touch ran.txt"}}]}
{"content":"waiting for your reason"}
{"content":"understood: A stays 1"}
`})
	f.cl.answer = func(r sdk.RequestPermissionRequest) string {
		if !slices.Contains(optionIDs(r), "reject_explain") {
			t.Errorf("hunk question options %v: no reject_explain", optionIDs(r))
			return "reject_once"
		}
		return "reject_explain"
	}
	sid := f.newSession("execute")
	f.mustPrompt(sid, "make A 10 and B 20", sdk.StopReasonEndTurn)
	if got := f.read("p.go"); got != twoHunksOld {
		t.Errorf("disk = %q, want nothing landed", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "ran.txt")); err == nil {
		t.Error("the command after the stop ran")
	}
	_, perms := f.cl.snapshot()
	if len(perms) != 1 {
		t.Fatalf("permissions = %d, want 1 (the second hunk and the command not asked)", len(perms))
	}
	reqs := f.llm.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	edit, cmd := string(reqs[2]), string(reqs[3])
	if !strings.Contains(edit, "rejected hunk 1 (lines 3) of p.go and will say why in their next message; end your turn") {
		t.Errorf("the edit's result does not say a reason follows: %s", edit)
	}
	if !strings.Contains(cmd, "end your turn now") || !strings.Contains(cmd, "approval_denied") {
		t.Errorf("the command after the stop was not declined with the reason: %s", cmd)
	}
	f.mustPrompt(sid, "A must stay 1: callers depend on it", sdk.StopReasonEndTurn)
	if req := f.lastRequest(); !strings.Contains(req, "Why I rejected hunk 1 (lines 3) of p.go: A must stay 1: callers depend on it") {
		t.Errorf("the next prompt did not reach the model as the reason: %s", req)
	}
}

package acp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// twoHunks is a file and an edit of it with two hunks far apart.
const (
	twoHunksOld = "package p\n\nfunc A() int { return 1 }\n\n// middle\n// middle\n// middle\n// middle\n\nfunc B() int { return 2 }\n"
	twoHunksNew = "package p\n\nfunc A() int { return 10 }\n\n// middle\n// middle\n// middle\n// middle\n\nfunc B() int { return 20 }\n"
	twoHunksOne = "package p\n\nfunc A() int { return 10 }\n\n// middle\n// middle\n// middle\n// middle\n\nfunc B() int { return 2 }\n"
)

const twoHunksScript = `
{"tool_calls":[{"name":"read_file","arguments":{"path":"p.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"p.go","content":"package p\n\nfunc A() int { return 10 }\n\n// middle\n// middle\n// middle\n// middle\n\nfunc B() int { return 20 }\n"}}]}
{"content":"done"}
`

func optionIDs(r sdk.RequestPermissionRequest) []string {
	var ids []string
	for _, o := range r.Options {
		ids = append(ids, string(o.OptionId))
	}
	return ids
}

// diffOf is the diff block of a permission request.
func diffOf(r sdk.RequestPermissionRequest) *sdk.ToolCallContentDiff {
	for _, c := range r.ToolCall.Content {
		if c.Diff != nil {
			return c.Diff
		}
	}
	return nil
}

// TestACP_E20_OneHunkOfTwo: an edit with two hunks asks two permissions,
// each with its diff (the file with that hunk alone applied) and allow
// once / reject only; accepting the first and rejecting the second
// writes exactly the first, the tool call says which landed, and the
// model is told the same.
func TestACP_E20_OneHunkOfTwo(t *testing.T) {
	f := start(t, setup{files: map[string]string{"p.go": twoHunksOld}, script: twoHunksScript})
	n := 0
	f.cl.answer = func(sdk.RequestPermissionRequest) string {
		n++
		if n == 1 {
			return "allow_once"
		}
		return "reject_once"
	}
	sid := f.newSession("execute")
	f.mustPrompt(sid, "make A 10 and B 20", sdk.StopReasonEndTurn)
	if got := f.read("p.go"); got != twoHunksOne {
		t.Errorf("disk = %q, want only the first hunk", got)
	}
	us, perms := f.cl.snapshot()
	if len(perms) != 2 {
		t.Fatalf("permissions = %d, want one per hunk (2)", len(perms))
	}
	abs := filepath.Join(f.root, "p.go")
	for i, p := range perms {
		d := diffOf(p)
		if d == nil || d.Path != abs || d.OldText == nil || *d.OldText != twoHunksOld {
			t.Fatalf("permission %d diff = %s", i, mustJSON(d))
		}
		if ids := optionIDs(p); !slices.Equal(ids, []string{"allow_once", "reject_once", "reject_explain"}) {
			t.Errorf("permission %d options = %v, want allow_once, reject_once and reject_explain", i, ids)
		}
		if !strings.Contains(*p.ToolCall.Title, fmt.Sprintf("hunk %d of 2", i+1)) {
			t.Errorf("permission %d title = %q", i, *p.ToolCall.Title)
		}
	}
	if d := diffOf(perms[0]); !strings.Contains(d.NewText, "return 10") || strings.Contains(d.NewText, "return 20") {
		t.Errorf("first hunk's diff = %q, want the first change alone", d.NewText)
	}
	if d := diffOf(perms[1]); strings.Contains(d.NewText, "return 10") || !strings.Contains(d.NewText, "return 20") {
		t.Errorf("second hunk's diff = %q, want the second change alone", d.NewText)
	}
	order, calls := toolCalls(us)
	edit := calls[order[1]]
	if !strings.Contains(edit.content, "hunk 1 (lines 3): applied") || !strings.Contains(edit.content, "hunk 2 (lines 10): rejected") {
		t.Errorf("edit call content = %q", edit.content)
	}
	if !slices.Contains(edit.statuses, "in_progress") && edit.statuses[len(edit.statuses)-1] != "completed" {
		t.Errorf("edit statuses = %v", edit.statuses)
	}
	if req := f.lastRequest(); !strings.Contains(req, `\"applied\":false`) || !strings.Contains(req, "rejected hunk 2") {
		t.Errorf("the model was not told the second hunk was rejected: %s", req)
	}
}

// TestACP_E20_StaleEditRefused: the file changes while its hunk is asked
// about: nothing of the change lands, the tool call fails saying so, and
// the model gets stale_file with the new content's hash.
func TestACP_E20_StaleEditRefused(t *testing.T) {
	f := start(t, setup{files: map[string]string{"p.go": twoHunksOld}, script: twoHunksScript})
	f.cl.answer = func(sdk.RequestPermissionRequest) string {
		_ = os.WriteFile(filepath.Join(f.root, "p.go"), []byte("// changed by the user\n"), 0o644)
		return "allow_once"
	}
	sid := f.newSession("")
	f.mustPrompt(sid, "make A 10 and B 20", sdk.StopReasonEndTurn)
	if got := f.read("p.go"); got != "// changed by the user\n" {
		t.Errorf("disk = %q, want the user's change alone", got)
	}
	us, _ := f.cl.snapshot()
	order, calls := toolCalls(us)
	edit := calls[order[1]]
	if edit.statuses[len(edit.statuses)-1] != "failed" || !strings.Contains(edit.content, "refused as stale") {
		t.Errorf("edit call = %+v, want failed, refused as stale", edit)
	}
	if req := f.lastRequest(); !strings.Contains(req, "stale_file") || !strings.Contains(req, "sha256:") {
		t.Errorf("the model was not told the edit was stale: %s", req)
	}
}

// TestACP_E20_ControlFileWarns: a change to a control file, by an edit
// or by a command's redirection, is asked with the warning first and
// never "allow always".
func TestACP_E20_ControlFileWarns(t *testing.T) {
	f := start(t, setup{script: `
{"tool_calls":[{"name":"write_file","arguments":{"path":".vscode/tasks.json","content":"{}\n"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"echo x > .envrc"}}]}
{"content":"done"}
`})
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "allow_once" }
	sid := f.newSession("")
	f.mustPrompt(sid, "add a task", sdk.StopReasonEndTurn)
	_, perms := f.cl.snapshot()
	// The edit, the command, and the command's change to .envrc held
	// back from the workspace until approved (S9).
	if len(perms) != 3 {
		t.Fatalf("%d permissions, want the edit's, the command's and its held change's: %s", len(perms), mustJSON(perms))
	}
	for _, p := range perms {
		if slices.Contains(optionIDs(p), "allow_always") {
			t.Errorf("control file offered allow_always: %v", optionIDs(p))
		}
		text := ""
		for _, c := range p.ToolCall.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				text += c.Content.Content.Text.Text
			}
		}
		if !strings.Contains(text, "WARNING") {
			t.Errorf("control file permission without its warning: %s", mustJSON(p.ToolCall))
		}
	}
	if got := f.read(".vscode/tasks.json"); got != "{}\n" {
		t.Errorf("approved control file = %q", got)
	}
	if got := f.read(".envrc"); got != "x\n" {
		t.Errorf("approved command's control file = %q", got)
	}
}

// TestACP_E20_DeniedCommandNeverRuns: a command with a control byte is
// refused by the sandbox's check, its title showing the byte visibly; a
// command is asked with its text and the sandbox note, with allow always
// offered; rejected, it never runs, the tool call fails and the model is
// told the user did not approve it.
func TestACP_E20_DeniedCommandNeverRuns(t *testing.T) {
	f := start(t, setup{script: `
{"tool_calls":[{"name":"run_command","arguments":{"command":"touch ran.txt # \u001b[2J"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"touch ran.txt"}}]}
{"content":"ok"}
`})
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "reject_once" }
	sid := f.newSession("")
	f.mustPrompt(sid, "touch it", sdk.StopReasonEndTurn)
	if _, err := os.Stat(filepath.Join(f.root, "ran.txt")); err == nil {
		t.Fatal("the rejected command ran")
	}
	us, perms := f.cl.snapshot()
	if len(perms) != 1 {
		t.Fatalf("permissions = %d, want 1: %s", len(perms), mustJSON(us))
	}
	p := perms[0]
	text := p.ToolCall.Content[0].Content.Content.Text.Text
	if !strings.Contains(text, "$ touch ran.txt") || !strings.Contains(text, "(in the workspace, timeout") {
		t.Errorf("command permission text = %q, want the command and the sandbox note", text)
	}
	if *p.ToolCall.Kind != sdk.ToolKindExecute || !slices.Contains(optionIDs(p), "allow_always") {
		t.Errorf("command permission kind %v options %v", *p.ToolCall.Kind, optionIDs(p))
	}
	order, calls := toolCalls(us)
	if c := calls[order[0]]; !strings.Contains(c.title, `\x1b[2J`) || strings.Contains(c.title+c.content, "\x1b") ||
		!strings.Contains(c.content, "command_denied") {
		t.Errorf("control byte command: title %q content %q, want refused, the byte visible", c.title, c.content)
	}
	if c := calls[order[1]]; c.statuses[len(c.statuses)-1] != "failed" || slices.Contains(c.statuses, "in_progress") {
		t.Errorf("denied command statuses = %v, want pending → failed", c.statuses)
	}
	if req := f.lastRequest(); !strings.Contains(req, "approval_denied") {
		t.Errorf("the model was not told: %s", req)
	}
}

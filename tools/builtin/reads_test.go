package builtin

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestEditFile_T17_StaleSinceRead: a change computed against content the
// model read is refused as stale_file, with nothing proposed, when the
// file changed since (the user typed in the buffer); reading it again, or
// the model's own applied change, makes the new content the one it saw.
func TestEditFile_T17_StaleSinceRead(t *testing.T) {
	h := newHarness(t)
	h.reads = tools.NewReadTracker()
	wantOK(t, h.call(t, "read_file", `{"path":"src/main.go"}`))
	typed := strings.Replace(mainGo, `println("hi")`, `println("hi there")`, 1)
	h.ws.overlay["src/main.go"] = typed // the user edits the open buffer

	te := wantErr(t, h.call(t, "edit_file", editArgsJSON("src/main.go", edit{"hi there", "yo"})), tools.CodeStaleFile, "path")
	wantContains(t, te.Recovery, "read the file again")
	wantErr(t, h.call(t, "write_file", map[string]string{"path": "src/main.go", "content": "package main\n"}), tools.CodeStaleFile, "path")
	if n := len(h.edits.changes); n != 0 {
		t.Fatalf("%d changes proposed for a stale file", n)
	}

	// Read again: the same edit goes through, against what was read.
	wantOK(t, h.call(t, "read_file", `{"path":"src/main.go"}`))
	wantOK(t, h.call(t, "edit_file", editArgsJSON("src/main.go", edit{"hi there", "yo"})))
	if n := len(h.edits.changes); n != 1 || string(h.edits.changes[0].Old) != typed {
		t.Fatalf("changes %d; want one computed against the buffer read", n)
	}
	// The editor applied it: the model's own change counts as seen.
	h.ws.overlay["src/main.go"] = string(h.edits.changes[0].New)
	wantOK(t, h.call(t, "edit_file", editArgsJSON("src/main.go", edit{"yo", "hey"})))

	// A file the model never read is not tracked.
	h.ws.overlay["README.md"] = "# changed\n"
	wantOK(t, h.call(t, "edit_file", editArgsJSON("README.md", edit{"changed", "demo"})))
}

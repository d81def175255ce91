package acp_test

import (
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACP_E20_ClientFiles: a client that offers fs/read_text_file and
// fs/write_text_file is read first (the model sees its unsaved buffer)
// and written through (the disk is left to it); the stale check runs
// against the buffer.
func TestACP_E20_ClientFiles(t *testing.T) {
	f := start(t, setup{files: map[string]string{"p.go": "package p // on disk\n"},
		caps: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"p.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"p.go","content":"package p // edited\n"}}]}
{"content":"done"}
`})
	abs := filepath.Join(f.root, "p.go")
	f.cl.buffers[abs] = "package p // unsaved\n"
	f.cl.answer = func(r sdk.RequestPermissionRequest) string {
		if d := diffOf(r); d == nil || *d.OldText != "package p // unsaved\n" {
			t.Errorf("diff against %s, want the buffer", mustJSON(d))
		}
		return "allow_once"
	}
	sid := f.newSession("")
	f.mustPrompt(sid, "edit it", sdk.StopReasonEndTurn)
	reqs := f.llm.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1]), "unsaved") || strings.Contains(string(reqs[1]), "on disk") {
		t.Errorf("the model did not read the buffer: %s", reqs[1])
	}
	f.cl.mu.Lock()
	writes := f.cl.writes
	f.cl.mu.Unlock()
	if len(writes) != 1 || writes[0].Path != abs || writes[0].Content != "package p // edited\n" {
		t.Errorf("fs/write_text_file = %s", mustJSON(writes))
	}
	if got := f.read("p.go"); got != "package p // on disk\n" {
		t.Errorf("disk = %q, want it left to the client", got)
	}
}

// TestACP_E20_ModesDecideTools: set_mode plan offers the model the
// read-only tools only; execute offers the edits.
func TestACP_E20_ModesDecideTools(t *testing.T) {
	f := start(t, setup{script: `
{"content":"planned"}
{"content":"executed"}
`})
	sid := f.newSession("plan")
	f.mustPrompt(sid, "plan it", sdk.StopReasonEndTurn)
	plan := f.lastRequest()
	f.newSessionMode(sid, "execute")
	f.mustPrompt(sid, "do it", sdk.StopReasonEndTurn)
	exec := f.lastRequest()
	if strings.Contains(plan, `"write_file"`) || strings.Contains(plan, `"run_command"`) || !strings.Contains(plan, `"read_file"`) {
		t.Errorf("plan offered writing tools: %s", plan)
	}
	if !strings.Contains(exec, `"write_file"`) || !strings.Contains(exec, "planned") {
		t.Errorf("execute: no write_file, or not the session's conversation: %s", exec)
	}
}

func (f *fixture) newSessionMode(sid sdk.SessionId, mode string) {
	f.t.Helper()
	if _, err := f.conn.SetSessionMode(t0(), sdk.SetSessionModeRequest{SessionId: sid, ModeId: sdk.SessionModeId(mode)}); err != nil {
		f.t.Fatal(err)
	}
}

// TestACP_E20_ClientWriteRefused: a client that accepts a hunk but then
// refuses to write it (acpx without --approve-all): nothing lands, the
// tool call says the hunk was accepted but not written, and the model is
// told the change was not applied and why.
func TestACP_E20_ClientWriteRefused(t *testing.T) {
	f := start(t, setup{files: map[string]string{"p.go": "package p\n"},
		caps: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"p.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"p.go","content":"package q\n"}}]}
{"content":"done"}
`})
	f.cl.refuse = true
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "allow_once" }
	sid := f.newSession("")
	f.mustPrompt(sid, "rename", sdk.StopReasonEndTurn)
	us, _ := f.cl.snapshot()
	order, calls := toolCalls(us)
	edit := calls[order[1]]
	if edit.statuses[len(edit.statuses)-1] != "failed" || !strings.Contains(edit.content, "accepted, but not written") ||
		strings.Contains(edit.content, ": rejected") {
		t.Errorf("edit call = %+v", edit)
	}
	if req := f.lastRequest(); !strings.Contains(req, "not applied") || !strings.Contains(req, "Permission denied") {
		t.Errorf("the model was not told why: %s", req)
	}
	if got := f.read("p.go"); got != "package p\n" {
		t.Errorf("disk = %q", got)
	}
}

package lspserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// E10, E14 (issue 24 item 9): a client that is asked first (eglot here,
// without showDocument) approves the change to a closed file, and the
// file then changes on disk before the editor would apply the edit. An
// unversioned edit would land misplaced on the new content; the server
// writes the approved change itself, after comparing the disk with what
// the change was computed against, and sends no edit at all.
func TestServer_E10_ClosedFileWrittenAsApproved(t *testing.T) {
	eglot := map[string]any{"name": "Eglot", "version": "1.9"}
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs},
		caps: clientCaps(true, false, false), clientInfo: eglot})
	e := newEditor(h)
	h.c.Handle("window/showMessageRequest", lsptest.Reply(map[string]string{"title": command.ActionApprove}))
	h.c.Handle("workspace/applyEdit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		// What the race looks like from the editor: the file gained a
		// header after the server's last check.
		h.writeFile("a.go", "// header\n"+twoFuncs)
		return e.applyEdit(ctx, raw)
	})
	res := h.mustRun(command.Execute, execArg(h))
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("%d unversioned edits sent for a closed file", n)
	}
	if got := h.read("a.go"); got != twoFuncsEdited {
		t.Errorf("a.go holds %q, want the approved change %q", got, twoFuncsEdited)
	}
	if e := res.Edits; e.Applied != 2 || e.Rejected != 0 || e.Stale != 0 {
		t.Errorf("edits %+v, want 2 hunks applied", e)
	}
	if r := h.editResult("e1"); r.Code != "" {
		t.Errorf("tool result %+v, want applied", r)
	}
}

// E10: the file changes on disk while the question is open; the approval
// then lands nothing and the model is told stale_file.
func TestServer_E10_ClosedFileChangedWhileAskedIsStale(t *testing.T) {
	eglot := map[string]any{"name": "Eglot", "version": "1.9"}
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs},
		caps: clientCaps(true, false, false), clientInfo: eglot})
	newEditor(h)
	h.c.Handle("window/showMessageRequest", func(ctx context.Context, raw json.RawMessage) (any, error) {
		h.writeFile("a.go", changedOnDisk)
		return map[string]string{"title": command.ActionApprove}, nil
	})
	res := h.mustRun(command.Execute, execArg(h))
	wantStale(t, h, res, changedOnDisk)
}

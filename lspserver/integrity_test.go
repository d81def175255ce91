package lspserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// changedOnDisk is a.go as another program rewrote it: a line added on
// top, so the proposal's old ranges would land one line off.
const changedOnDisk = "// generated header\n" + twoFuncs

func sha(s string) string {
	b := sha256.Sum256([]byte(s))
	return hex.EncodeToString(b[:])
}

// writeFile changes a workspace file behind the server's back.
func (h *harness) writeFile(rel, text string) {
	h.t.Helper()
	if err := os.WriteFile(h.path(rel), []byte(text), 0o644); err != nil {
		h.t.Error(err)
	}
}

// wantStale checks that the change e1 was refused as stale_file with the
// hash of the new content, and that nothing was applied or overwritten.
func wantStale(t *testing.T, h *harness, res *command.Result, now string) {
	t.Helper()
	r := h.editResult("e1")
	if r.Code != "stale_file" {
		t.Errorf("tool result %+v, want code stale_file", r)
	}
	if !strings.Contains(r.Reason, "sha256:"+sha(now)) {
		t.Errorf("reason %q lacks the new content's hash sha256:%s", r.Reason, sha(now))
	}
	if e := res.Edits; e.Proposed != 2 || e.Stale != 2 || e.Applied != 0 || e.Rejected != 0 {
		t.Errorf("edits = %+v, want 2 proposed, 2 stale (hunks)", e)
	}
	if got := h.read("a.go"); got != now {
		t.Errorf("a.go on disk:\n%s\nwant the external change untouched:\n%s", got, now)
	}
}

// T17, E14: a closed file changed on disk while the confirmation question
// is open never gets the old ranges: the answer is re-checked against the
// disk right before sending, and the model is told stale_file with the
// new hash. (The bug: applyEdit went out with the old ranges.)
func TestServer_T17_ClosedFileChangedWhileAsked(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(false, false, false)})
	h.c.Handle("window/showMessageRequest", func(ctx context.Context, raw json.RawMessage) (any, error) {
		if strings.Contains(string(raw), "wants to change a.go") {
			time.Sleep(50 * time.Millisecond)  // the user reads the diff…
			h.writeFile("a.go", changedOnDisk) // …and the file changes meanwhile
		}
		return map[string]string{"title": command.ActionApprove}, nil
	})
	res := h.mustRun(command.Execute, execArg(h))
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit for a file that changed while the question was open, want 0", n)
	}
	wantStale(t, h, res, changedOnDisk)
}

// E10: with the fsnotify watch on, a change on disk withdraws the open
// question at once ($/cancelRequest) instead of waiting for an answer.
func TestServer_E10_QuestionWithdrawnOnDiskChange(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(false, false, false),
		opts: func(o *lspserver.Options) { o.Watch = &lspserver.WatchOptions{} }})
	h.c.Handle("window/showMessageRequest", func(ctx context.Context, raw json.RawMessage) (any, error) {
		time.Sleep(50 * time.Millisecond) // the question is open…
		h.writeFile("a.go", changedOnDisk)
		return lsptest.NeverAnswer(ctx, raw)
	})
	began := time.Now()
	res := h.mustRun(command.Execute, execArg(h))
	if d := time.Since(began); d > 4*time.Second {
		t.Errorf("the run took %v: the question was not withdrawn (approval timeout 5s)", d)
	}
	if n := len(h.c.Received("$/cancelRequest")); n != 1 {
		t.Errorf("%d $/cancelRequest, want 1 for the withdrawn question", n)
	}
	wantStale(t, h, res, changedOnDisk)
}

// E10: the client's workspace/didChangeWatchedFiles withdraws the question
// too, without the server's own watch.
func TestServer_E10_QuestionWithdrawnOnClientFileEvent(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(false, false, false)})
	h.c.Handle("window/showMessageRequest", func(ctx context.Context, raw json.RawMessage) (any, error) {
		time.Sleep(50 * time.Millisecond)
		h.writeFile("a.go", changedOnDisk)
		err := h.c.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
			"changes": []any{map[string]any{"uri": h.uri("a.go"), "type": 2}},
		})
		if err != nil {
			return nil, err
		}
		return lsptest.NeverAnswer(ctx, raw)
	})
	began := time.Now()
	res := h.mustRun(command.Execute, execArg(h))
	if d := time.Since(began); d > 4*time.Second {
		t.Errorf("the run took %v: the question was not withdrawn", d)
	}
	wantStale(t, h, res, changedOnDisk)
}

// showDocumentCaps is a VS Code-like client that can show documents.
func showDocumentCaps() map[string]any {
	caps := clientCaps(true, false, false)
	caps["window"] = map[string]any{"showDocument": map[string]any{"support": true}}
	return caps
}

// E14, T17: a client that holds an annotated edit in its preview gets a
// closed file opened first (window/showDocument), so the edit is
// versioned; the file changes on disk while the preview is open, the
// editor reloads it and refuses the stale version, and the model is told
// stale_file. (The bug: an unversioned edit, applied to the new content.)
func TestServer_E14_ClosedFileOpenedFirst(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: showDocumentCaps()})
	var version *int
	h.c.Handle("window/showDocument", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			URI       string `json:"uri"`
			TakeFocus *bool  `json:"takeFocus"`
		}
		_ = json.Unmarshal(raw, &p)
		if p.TakeFocus == nil || *p.TakeFocus {
			t.Errorf("showDocument %s takes focus", raw)
		}
		h.open("a.go", 1, h.read("a.go"))
		return map[string]bool{"success": true}, nil
	})
	h.c.Handle("workspace/applyEdit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p applyParams
		_ = json.Unmarshal(raw, &p)
		version = p.Edit.DocumentChanges[0].TextDocument.Version
		// The file changes while the preview is open; the editor reloads it.
		h.writeFile("a.go", changedOnDisk)
		h.changeAll("a.go", 2, changedOnDisk)
		return applyAnswer{FailureReason: "the document changed (version 2, the edit is for 1)"}, nil
	})
	res := h.mustRun(command.Execute, execArg(h))
	if n := len(h.c.Received("window/showDocument")); n != 1 {
		t.Errorf("%d showDocument, want 1 before the edit", n)
	}
	if version == nil || *version != 1 {
		t.Errorf("applyEdit version %v, want 1 (the document opened first)", version)
	}
	if n := len(h.c.Received("window/showMessageRequest")); n != 0 {
		t.Errorf("%d questions to a client that confirms annotations", n)
	}
	wantStale(t, h, res, changedOnDisk)
}

// E14: a trusted client without showDocument is asked first about a
// closed file, since an unversioned edit held in its preview would land
// on whatever the file holds by then.
func TestServer_E14_ClosedFileWithoutShowDocumentAsked(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, false, false)})
	newEditor(h)
	h.c.Handle("window/showMessageRequest", lsptest.Reply(map[string]string{"title": command.ActionApprove}))
	res := h.mustRun(command.Execute, execArg(h))
	if n := len(h.c.Received("window/showMessageRequest")); n < 1 {
		t.Errorf("no question before an unversioned edit of a closed file")
	}
	if res.Edits.Applied != 2 {
		t.Errorf("edits %+v, want applied after the approval", res.Edits)
	}
}

// E14: the editor says it applied the edit, but what landed is not the
// old text with some of the hunks: the model and the user are told of the
// mismatch, and it is never counted as applied.
func TestServer_E14_MismatchReported(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, false, false)})
	h.open("a.go", 1, twoFuncs)
	landed := "// generated header\n" + twoFuncsEdited
	h.c.Handle("workspace/applyEdit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		h.changeAll("a.go", 2, landed)
		return applyAnswer{Applied: true}, nil
	})
	res := h.mustRun(command.Execute, execArg(h))
	r := h.editResult("e1")
	if r.Code != "stale_file" || !strings.Contains(r.Reason, "not what was proposed") || !strings.Contains(r.Reason, sha(landed)) {
		t.Errorf("tool result %+v, want stale_file: not what was proposed, with the hash", r)
	}
	if e := res.Edits; e.Applied != 0 || e.Stale != 2 {
		t.Errorf("edits %+v, want 0 applied, 1 stale", e)
	}
	if _, err := h.c.WaitText(time.Second, "window/showMessage", "did not land as proposed"); err != nil {
		t.Errorf("the user was not told of the mismatch: %v", err)
	}
}

// E14: every client that is not known to show annotated edits is asked
// with the diff before any applyEdit, even when it advertises
// changeAnnotationSupport (Sublime Text LSP applies them silently); the
// edit it then gets needs no second confirmation. Known clients get the
// annotated edit and no question.
func TestServer_E14_ConfirmationPerClient(t *testing.T) {
	for _, c := range []struct {
		info    map[string]any
		plugin  bool
		wantAsk bool
	}{
		{map[string]any{"name": "Sublime Text LSP", "version": "2.3.0"}, false, true},
		{map[string]any{"name": "helix", "version": "25.01.1"}, false, true},
		{map[string]any{"name": "Eglot", "version": "1.17"}, false, true},
		{map[string]any{"name": "Kate", "version": "24.12"}, false, true},
		{map[string]any{"name": "Neovim", "version": "0.11.2"}, false, true},
		{map[string]any{"name": "some editor"}, false, true},
		{map[string]any{"name": "Visual Studio Code", "version": "1.101.0"}, false, false},
		{map[string]any{"name": "code-server", "version": "4.100.0"}, false, false},
		{map[string]any{"name": "Neovim", "version": "0.12.0"}, false, false},
		{map[string]any{"name": "Eclipse IDE", "version": "0.27.0"}, false, false},
		{map[string]any{"name": "coc.nvim", "version": "0.0.82"}, false, false},
		{map[string]any{"name": "Neovim", "version": "0.7.2"}, true, false}, // our plugin
	} {
		name := c.info["name"].(string)
		if v, ok := c.info["version"].(string); ok {
			name += " " + v
		}
		t.Run(name, func(t *testing.T) {
			h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs},
				caps: clientCaps(true, c.plugin, false), clientInfo: c.info})
			ed := newEditor(h)
			ed.open("a.go", 1, nil)
			h.c.Handle("window/showMessageRequest", lsptest.Reply(map[string]string{"title": command.ActionApprove}))
			res := h.mustRun(command.Execute, execArg(h))
			if res.Edits.Applied != 2 {
				t.Fatalf("edits %+v, want 1 applied", res.Edits)
			}
			var asked, applied = -1, -1
			var p applyParams
			for _, m := range h.c.Messages() {
				switch {
				case m.Method == "window/showMessageRequest" && asked < 0 && strings.Contains(string(m.Params), "wants to change a.go"):
					asked = m.Seq
				case m.Method == "workspace/applyEdit" && applied < 0:
					applied = m.Seq
					_ = json.Unmarshal(m.Params, &p)
				}
			}
			if got := asked >= 0; got != c.wantAsk {
				t.Fatalf("asked with the diff = %v, want %v", got, c.wantAsk)
			}
			if c.wantAsk && asked > applied {
				t.Errorf("the question (message %d) came after applyEdit (message %d)", asked, applied)
			}
			for id, a := range p.Edit.ChangeAnnotations {
				if a.NeedsConfirmation == c.wantAsk {
					t.Errorf("annotation %s needsConfirmation %v; want %v", id, a.NeedsConfirmation, !c.wantAsk)
				}
			}
		})
	}
}

// E10: a watch that cannot cover the whole workspace says so.
func TestServer_E10_WatchBoundReported(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a/x.go": "package a\n", "b/y.go": "package b\n", "c/z.go": "package c\n"},
		opts: func(o *lspserver.Options) { o.Watch = &lspserver.WatchOptions{MaxDirs: 2} }})
	if _, err := h.c.WaitText(5*time.Second, "window/logMessage", "covers 2 directories"); err != nil {
		t.Errorf("a bounded watch was not reported: %v", err)
	}
}

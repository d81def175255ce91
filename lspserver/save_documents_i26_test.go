package lspserver_test

import (
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// E6, issue 26 item 5: an editor that never answers agentls/saveDocuments
// holds the run only for the save's own short timeout, not for the
// approval timeout (here 10 minutes, past the test's deadline); the run
// goes on with what is on disk and says so — in the log and in the run's
// view — and the model learns the edit was not saved.
func TestServer_E6_Issue26_UnansweredSaveDocumentsTimesOut(t *testing.T) {
	caps := clientCaps(true, true, true)
	caps["experimental"].(map[string]any)["agentls"].(map[string]any)["runEvents"] = true
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: caps,
		opts: func(o *lspserver.Options) {
			o.LoadPolicy = questionsWithin(10 * time.Minute)
			o.SaveDocumentsTimeout = 200 * time.Millisecond
		}})
	ed := newEditor(h)
	h.c.Handle(command.MethodSaveDocuments, lsptest.NeverAnswer)
	ed.open("a.go", 7, nil)

	res := h.mustRun(command.Execute, execArg(h))
	if res.Status != "done" || res.Edits.Applied != 2 {
		t.Fatalf("status %q, edits %+v: %s", res.Status, res.Edits, res.Summary)
	}
	if r := h.editResult("e1"); !r.Applied || r.Saved {
		t.Errorf("tool result %+v, want applied and not saved", r)
	}
	if got := h.read("a.go"); got != twoFuncs {
		t.Errorf("the disk changed without a save:\n%s", got)
	}
	h.wantMessage("window/logMessage", "agentls/saveDocuments unanswered", "goes on with what is on disk")
	if !h.runWarning("agentls/saveDocuments unanswered") {
		t.Error("the run's view does not say the save went unanswered")
	}
}

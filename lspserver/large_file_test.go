package lspserver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// T9, #12 item 2: a file between the old server limit (8 MiB) and the
// tools' limit (10 MiB) is edited, read back and saved like any other.
// Before, the tools accepted the 9 MiB file but the server could not read
// it back from disk: the edit stalled in verification and the run said
// "not saved to disk yet" although it was.
func TestServer_T9_NineMiBFileEditSaved(t *testing.T) {
	filler := strings.Repeat("// filler line of a large generated file\n", (9<<20)/42)
	big := "package a\n\nfunc One() int { return 1 }\n\n" + filler + "\nfunc Two() int { return 2 }\n"
	if len(big) <= 8<<20 || len(big) > sandbox.MaxFileBytes {
		t.Fatalf("fixture of %d bytes is not between 8 MiB and the limit", len(big))
	}
	for _, open := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "open"}[open], func(t *testing.T) {
			editBig(t, big, open)
		})
	}
}

func editBig(t *testing.T, big string, open bool) {
	// The fake editor applies 9 MiB through JSON under -race: on a busy
	// machine that takes longer than the harness's 5 s question timeout.
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": big}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) { o.LoadPolicy = questionsWithin(time.Minute) }})
	ed := newEditor(h)
	if open {
		ed.open("a.go", 1, nil)
	}
	res := h.mustRun(command.Execute, execArg(h))
	if res.Status != "done" || strings.Contains(res.Summary, "not saved") {
		t.Fatalf("status %q, summary %q", res.Status, res.Summary)
	}
	if e := res.Edits; e.Applied != 2 {
		t.Errorf("edits %+v, want 1 applied", e)
	}
	if r := h.editResult("e1"); !r.Applied || !r.Saved {
		t.Errorf("edit result %+v, want applied and saved", r)
	}
	want := strings.Replace(strings.Replace(big, "return 1 }", "return 10 }", 1), "return 2 }", "return 20 }", 1)
	if got := h.read("a.go"); got != want {
		t.Errorf("the disk does not hold the edit (%d bytes, want %d)", len(got), len(want))
	}
}

// E3, #12 item 8: a runaway answer does not become a huge command result:
// the summary is cut to 64 KiB with a note saying how much was left out.
// Before, a 10 MB answer was a 10 MB result.
func TestServer_E3_LongSummaryBounded(t *testing.T) {
	long := strings.Repeat("The plan goes on and on. ", (10<<20)/25)
	h := start(t, setup{script: fmt.Sprintf(`{"content":%q}`, long), files: map[string]string{"a.go": "package a\n"}})
	res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"})
	if n := len(res.Summary); n > 65<<10 {
		t.Fatalf("summary of %d bytes", n)
	}
	if !strings.HasPrefix(res.Summary, "The plan goes on") || !strings.Contains(res.Summary, "[cut: ") || !strings.Contains(res.Summary, "kept in the session]") {
		t.Errorf("summary does not say it was cut: …%s", res.Summary[len(res.Summary)-120:])
	}
}

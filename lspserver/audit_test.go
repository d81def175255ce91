package lspserver_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// T10, A14, #12 item 9: when the audit log cannot be written, the user is
// told once (window/showMessage), however many records fail; the run goes
// on. Before, the failure was only counted where nobody looked.
func TestServer_T10_AuditFailureWarnsOnce(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}},{"id":"r2","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"content":"Plan: nothing."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) { o.Audit = tools.NewAuditLog(fullDisk{}) }})
	if res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"}); res.Status != "done" {
		t.Fatalf("status %q", res.Status)
	}
	if _, err := h.c.WaitText(time.Second, "window/showMessage", "audit log could not be written"); err != nil {
		t.Fatalf("no warning: %v", err)
	}
	if n := len(h.c.Received("window/showMessage")); n != 1 {
		t.Errorf("%d warnings for 2 lost records, want 1", n)
	}
}

// A11, #12 item 10: a temporary file of an atomic write that a killed
// agentls left in the workspace is removed when the next server starts;
// a file that only looks alike stays.
func TestServer_A11_StaleTempsRemovedAtStart(t *testing.T) {
	stale, other := ".a.go.agentls-ABCDEFGHIJKL", ".a.go.agentls-keep"
	h := start(t, setup{noInit: true, files: map[string]string{"a.go": "package a\n", stale: "half", other: "x"}})
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{stale, other} {
		if err := os.Chtimes(h.path(n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.c.Initialize(h.ctx(), lsptest.InitializeParams(h.root, nil)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for {
		if _, err := os.Stat(h.path(stale)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still there", stale)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(h.path(other)); err != nil {
		t.Errorf("%s was touched: %v", other, err)
	}
}

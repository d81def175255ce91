package lspserver_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// A16, issue 26 item 1: a server that runs for days releases each run's
// session when the run ends: 60 plan runs on one serve, each in its own
// session, leave the open files where they were (before: one more log
// file open per run, for as long as serve ran). Continuing a session
// afterwards reopens it from the store with its conversation.
func TestServer_A16_Issue26_SessionsReleased(t *testing.T) {
	const warm, runs = 3, 60
	lines := make([]string, warm+runs+1)
	for i := range lines {
		lines[i] = `{"content":"ok"}`
	}
	h := start(t, setup{script: strings.Join(lines, "\n"), files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) { o.StateDir = t.TempDir() }})
	plan := map[string]any{"uri": h.uri("a.go"), "instruction": "look"}
	var first *command.Result
	for i := range warm {
		if r := h.mustRun(command.Plan, plan); i == 0 {
			first = r
		}
	}
	before := openFDs(t)
	for range runs {
		h.mustRun(command.Plan, plan)
	}
	after := openFDs(t)
	t.Logf("open files: %d before %d plan runs, %d after", before, runs, after)
	if after-before > 5 {
		t.Errorf("open files grew from %d to %d over %d plan runs: sessions are not released", before, after, runs)
	}
	next := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "again", "sessionId": first.SessionID})
	if next.SessionID != first.SessionID || next.RunID != first.SessionID+"-2" {
		t.Errorf("continuing a released session: session %q run %q, want %s-2", next.SessionID, next.RunID, first.SessionID)
	}
	reqs := h.modelRequests()
	last := reqs[len(reqs)-1].texts()
	if !strings.Contains(strings.Join(last, "\n"), "user: ") || len(last) < 4 {
		t.Errorf("the continued run did not get the session's conversation: %q", last)
	}
}

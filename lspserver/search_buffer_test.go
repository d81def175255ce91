package lspserver_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
)

// B1, E10 (issue 27 item 1): search reads an open buffer, not the disk,
// for the files the editor holds, and the disk for every other file —
// through the fast path, with the server's workspace saying which is which.
func TestServer_B1_SearchReadsBuffersAndDisk(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"s1","name":"search","arguments":{"pattern":"NEEDLE"}}]}`,
		`{"content":"found"}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{
		"open.go":   "package a\n// saved text\n",
		"closed.go": "package a\n// NEEDLE on disk\n",
		"stale.go":  "package a\n// NEEDLE only on disk\n",
	}})
	h.open("open.go", 1, "package a\n// NEEDLE in the buffer\n")
	h.open("stale.go", 1, "package a\n// edited away in the buffer\n")
	res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("open.go"), "instruction": "find it"})
	if res.Status != "done" {
		t.Fatalf("status %s: %s", res.Status, res.Summary)
	}
	out := h.toolResult("s1")
	for _, want := range []string{"open.go:2: // NEEDLE in the buffer", "closed.go:2: // NEEDLE on disk"} {
		if !strings.Contains(out, want) {
			t.Errorf("search result lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stale.go") {
		t.Errorf("search read stale.go from the disk, not its buffer:\n%s", out)
	}
}

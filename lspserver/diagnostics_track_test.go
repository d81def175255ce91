package lspserver_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// E5 (issue 24 item 10): review findings follow the code they are about.
// Lines added above a finding move it; a fix of its lines withdraws it;
// a closed file changed on disk is followed too. Before, they stayed on
// lines that then held other code until the next review.
func TestServer_E5_FindingsFollowTheirLines(t *testing.T) {
	const file = "package r\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n\nfunc Two() int { return 2 }\n"
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"r.go"}}]}`,
		`{"tool_calls":[` +
			`{"id":"f1","name":"report_finding","arguments":{"path":"r.go","line":4,"severity":"error","message":"division by zero"}},` +
			`{"id":"f2","name":"report_finding","arguments":{"path":"r.go","line":7,"severity":"hint","message":"document Two"}},` +
			`{"id":"f3","name":"report_finding","arguments":{"path":"s.go","line":1,"severity":"info","message":"closed file"}}]}`,
		`{"content":"Three findings."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"r.go": file, "s.go": "package r\n"}})
	h.open("r.go", 1, file)
	if res := h.mustRun(command.Review, map[string]any{"uri": h.uri("r.go"), "instruction": "review"}); res.Status != "done" {
		t.Fatalf("status %q: %s", res.Status, res.Summary)
	}
	waitDiags(t, h, "r.go", "division by zero@3 document Two@6")

	// Two lines added above: both move down by two.
	moved := "// Package r.\n// More.\n" + file
	h.changeAll("r.go", 2, moved)
	waitDiags(t, h, "r.go", "division by zero@5 document Two@8")

	// The division is fixed: its finding goes, the other stays.
	fixed := strings.Replace(moved, "\treturn a / b\n", "\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n", 1)
	fixed = strings.Replace(fixed, "\treturn a / b\n", "\treturn a / b // b != 0\n", 1)
	h.changeAll("r.go", 3, fixed)
	waitDiags(t, h, "r.go", "document Two@11")

	// A closed file rewritten on disk: its finding is withdrawn.
	waitDiags(t, h, "s.go", "closed file@0")
	h.writeFile("s.go", "package s\n")
	if err := h.c.Notify(h.ctx(), "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []any{map[string]any{"uri": h.uri("s.go"), "type": 2}},
	}); err != nil {
		t.Fatal(err)
	}
	waitDiags(t, h, "s.go", "")
}

// waitDiags waits for diagnostics of rel that read want: each
// "message@line" (0-based start line), sorted, space-separated.
func waitDiags(t *testing.T, h *harness, rel, want string) {
	t.Helper()
	var last string
	_, err := h.c.WaitNotification(wait, "textDocument/publishDiagnostics", func(m lsptest.Message) bool {
		var pd struct {
			URI         string `json:"uri"`
			Diagnostics []struct {
				Range struct {
					Start struct{ Line int } `json:"start"`
				} `json:"range"`
				Message string `json:"message"`
			} `json:"diagnostics"`
		}
		if json.Unmarshal(m.Params, &pd) != nil || pd.URI != h.uri(rel) {
			return false
		}
		var got []string
		for _, d := range pd.Diagnostics {
			got = append(got, fmt.Sprintf("%s@%d", d.Message, d.Range.Start.Line))
		}
		slices.Sort(got)
		last = strings.Join(got, " ")
		return last == want
	})
	if err != nil {
		t.Fatalf("diagnostics of %s: last %q, want %q (%v)", rel, last, want, err)
	}
}

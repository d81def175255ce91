package lspserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// E4: a plan run is read-only. The model is offered only read tools
// (parameter layer); a write it asks for anyway is refused by the gateway
// (fallback) with unknown_tool or read_only_run; no applyEdit is ever sent
// and the file is unchanged.
func TestServer_E4_PlanIsReadOnly(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[` +
			`{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"A","new_text":"B"}]}},` +
			`{"id":"w1","name":"write_file","arguments":{"path":"new.go","content":"package a\n"}},` +
			`{"id":"f1","name":"report_finding","arguments":{"path":"a.go","line":1,"severity":"error","message":"x"}}]}`,
		`{"content":"Plan: rename A to B in a.go."}`,
	}, "\n")
	applyEdits := 0
	h := start(t, setup{
		script: script,
		files:  map[string]string{"a.go": "package a\n\nfunc A() {}\n"},
		caps:   fullCaps(true),
		handlers: map[string]lsptest.Handler{
			"workspace/applyEdit": func(_ context.Context, _ json.RawMessage) (any, error) {
				applyEdits++
				return map[string]any{"applied": true}, nil
			},
		},
	})
	res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "rename A to B"})
	if res.Status != "done" || !strings.Contains(res.Summary, "Plan:") {
		t.Errorf("status %q summary %q", res.Status, res.Summary)
	}
	reqs := h.modelRequests()
	if names := reqs[0].toolNames(); slices.ContainsFunc(names, func(n string) bool {
		return n == "edit_file" || n == "write_file" || n == "report_finding"
	}) {
		t.Errorf("a plan run offers %v", names)
	}
	for _, id := range []string{"e1", "w1", "f1"} {
		var te struct {
			Code string `json:"code"`
		}
		out := h.toolResult(id)
		if err := json.Unmarshal([]byte(out), &te); err != nil || (te.Code != "unknown_tool" && te.Code != "read_only_run") {
			t.Errorf("tool result for %s = %s, want code unknown_tool or read_only_run", id, out)
		}
	}
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 || applyEdits != 0 {
		t.Errorf("%d applyEdit requests in a plan run", n)
	}
	if got := h.read("a.go"); got != "package a\n\nfunc A() {}\n" {
		t.Errorf("a.go changed: %q", got)
	}
	if _, err := h.c.WaitNotification(0, "textDocument/publishDiagnostics", nil); err == nil {
		t.Error("a plan run published diagnostics")
	}
	if e := res.Edits; e.Proposed != 0 || e.Applied != 0 || e.Rejected != 0 {
		t.Errorf("edits = %+v, want all zero", e)
	}
	for _, s := range res.Steps {
		if s.OK {
			t.Errorf("step %+v succeeded", s)
		}
	}
}

// E5: a review publishes its findings as diagnostics (source agentls) on
// the right 0-based UTF-16 ranges with the right severities; "path:line:
// message" lines of the final answer become findings too; findings on
// lines that do not exist or outside the workspace are dropped with a
// window/logMessage; result.findings matches.
func TestServer_E5_ReviewFindings(t *testing.T) {
	const file = "package r\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n// 😀 emoji line\n"
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"r.go"}}]}`,
		`{"tool_calls":[` +
			`{"id":"f1","name":"report_finding","arguments":{"path":"r.go","line":4,"severity":"error","message":"division by zero when b is 0"}},` +
			`{"id":"f2","name":"report_finding","arguments":{"path":"r.go","line":3,"end_line":5,"severity":"hint","message":"document Div"}},` +
			`{"id":"f3","name":"report_finding","arguments":{"path":"r.go","line":99,"severity":"error","message":"no such line"}},` +
			`{"id":"f4","name":"report_finding","arguments":{"path":"../outside.go","line":1,"severity":"error","message":"outside"}}]}`,
		jsonLine(map[string]any{"content": "Two problems.\nr.go:6: info: odd comment\nr.go:2: blank line\nr.go:99: error: gone\n/etc/passwd:1: error: outside\n"}),
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"r.go": file}})
	res := h.mustRun(command.Review, map[string]any{"uri": h.uri("r.go"), "instruction": "review"})
	if res.Status != "done" {
		t.Fatalf("status %q: %s", res.Status, res.Summary)
	}
	for _, id := range []string{"f3", "f4"} {
		if out := h.toolResult(id); !strings.Contains(out, `"code"`) {
			t.Errorf("report_finding %s was accepted: %s", id, out)
		}
	}
	msg, err := h.c.WaitNotification(wait, "textDocument/publishDiagnostics", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pd struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
				End   struct{ Line, Character int } `json:"end"`
			} `json:"range"`
			Severity int    `json:"severity"`
			Source   string `json:"source"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(msg.Params, &pd); err != nil {
		t.Fatal(err)
	}
	if pd.URI != h.uri("r.go") {
		t.Errorf("diagnostics for %s, want %s", pd.URI, h.uri("r.go"))
	}
	type diag struct {
		l1, c1, l2, c2, sev int
		msg                 string
	}
	var got []diag
	for _, d := range pd.Diagnostics {
		if d.Source != "agentls" {
			t.Errorf("source %q", d.Source)
		}
		got = append(got, diag{d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character, d.Severity, d.Message})
	}
	want := []diag{
		{3, 0, 3, 13, 1, "division by zero when b is 0"},
		{2, 0, 4, 1, 4, "document Div"},
		{5, 0, 5, 16, 3, "odd comment"},
		{1, 0, 1, 0, 2, "blank line"},
	}
	sortDiags := func(ds []diag) {
		slices.SortFunc(ds, func(a, b diag) int { return strings.Compare(a.msg, b.msg) })
	}
	sortDiags(got)
	sortDiags(want)
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics\n got %+v\nwant %+v", got, want)
	}

	wantFindings := []command.Finding{
		{Path: "r.go", Line: 4, Severity: "error", Message: "division by zero when b is 0"},
		{Path: "r.go", Line: 3, EndLine: 5, Severity: "hint", Message: "document Div"},
		{Path: "r.go", Line: 6, Severity: "info", Message: "odd comment"},
		{Path: "r.go", Line: 2, Severity: "warning", Message: "blank line"},
	}
	gotFindings := slices.Clone(res.Findings)
	byMsg := func(a, b command.Finding) int { return strings.Compare(a.Message, b.Message) }
	slices.SortFunc(gotFindings, byMsg)
	slices.SortFunc(wantFindings, byMsg)
	if !slices.Equal(gotFindings, wantFindings) {
		t.Errorf("findings\n got %+v\nwant %+v", gotFindings, wantFindings)
	}

	// The two dropped fallback findings are logged for the user.
	var dropped []string
	for _, m := range h.c.Received("window/logMessage") {
		var lm struct{ Message string }
		_ = json.Unmarshal(m.Params, &lm)
		if strings.Contains(lm.Message, "dropped") {
			dropped = append(dropped, lm.Message)
		}
	}
	if len(dropped) != 2 {
		t.Errorf("logMessages about dropped findings: %q, want 2", dropped)
	}
	for _, d := range dropped {
		if strings.Contains(d, h.root) {
			t.Errorf("a log message shows the host path: %q", d)
		}
	}
}

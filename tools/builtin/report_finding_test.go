package builtin

import (
	"slices"
	"testing"

	"github.com/agentls/agentls/tools"
)

func TestReportFinding_E5(t *testing.T) {
	h := newHarness(t)
	review := &tools.GatewayOptions{Allowed: append(slices.Clone(readTools), "report_finding"), ReadOnly: true} // risk none passes a read-only run
	got := wantOK(t, h.callWith(t, review, "report_finding",
		`{"path":"./src/main.go","line":4,"end_line":5,"severity":"warning","message":"greets"}`))
	if got != "finding recorded at src/main.go:4-5" {
		t.Errorf("result = %q", got)
	}
	wantOK(t, h.callWith(t, review, "report_finding", `{"path":"README.md","line":1,"severity":"hint","message":"m"}`))
	want := []tools.Finding{
		{Path: "src/main.go", Line: 4, EndLine: 5, Severity: "warning", Message: "greets"},
		{Path: "README.md", Line: 1, Severity: "hint", Message: "m"},
	}
	if len(h.sink.got) != len(want) {
		t.Fatalf("findings = %+v", h.sink.got)
	}
	for i := range want {
		if h.sink.got[i] != want[i] {
			t.Errorf("finding %d = %+v; want %+v", i, h.sink.got[i], want[i])
		}
	}
	wantErr(t, h.call(t, "report_finding", `{"path":"src/main.go","line":5,"end_line":4,"severity":"info","message":"m"}`),
		tools.CodeInvalidArgs, "end_line")
	h.sink.err = errLineMissing
	te := wantErr(t, h.call(t, "report_finding", `{"path":"src/main.go","line":99,"severity":"error","message":"m"}`),
		tools.CodeInvalidArgs, "")
	wantContains(t, te.Reason, "line 99 does not exist")
	h.noFindings = true
	wantErr(t, h.call(t, "report_finding", `{"path":"src/main.go","line":1,"severity":"info","message":"m"}`),
		tools.CodeUnavailable, "")
}

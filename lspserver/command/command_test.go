package command

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// E3: the JSON of each shape, as the editors see it: which members are
// always there (edits, instruction, a null text) and which are left out
// when empty (range, steps, findings, endLine, code, incomplete).
func TestJSON(t *testing.T) {
	text := "git push --dry-run"
	r := &protocol.Range{End: protocol.Position{Line: 2, Character: 5}}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty result", Result{}, `{"sessionId":"","runId":"","status":"","summary":"","edits":{"proposed":0,"applied":0,"rejected":0}}`},
		{"full result", Result{
			SessionID: "abc", RunID: "abc-2", Status: StatusDone, Summary: "ok",
			Steps:    []Step{{Turn: 1, Tool: "read_file", OK: true}, {Turn: 2, Tool: "edit_file", Code: "approval_denied"}},
			Findings: []Finding{{Path: "a.go", Line: 3, Severity: "error", Message: "m"}, {Path: "a.go", Line: 3, EndLine: 5, Severity: "hint", Message: "n"}},
			Edits:    EditCounts{Proposed: 2, Applied: 1, Rejected: 1}, Incomplete: true,
		}, `{"sessionId":"abc","runId":"abc-2","status":"done","summary":"ok",` +
			`"steps":[{"turn":1,"tool":"read_file","ok":true},{"turn":2,"tool":"edit_file","ok":false,"code":"approval_denied"}],` +
			`"findings":[{"path":"a.go","line":3,"severity":"error","message":"m"},{"path":"a.go","line":3,"endLine":5,"severity":"hint","message":"n"}],` +
			`"edits":{"proposed":2,"applied":1,"rejected":1},"incomplete":true}`},
		{"args", Args{Target: Target{URI: "file:///w/a.go"}}, `{"uri":"file:///w/a.go","instruction":""}`},
		{"args with range", Args{Target: Target{URI: "file:///w/a.go", Range: r}, Instruction: "x"},
			`{"uri":"file:///w/a.go","range":{"start":{"line":0,"character":0},"end":{"line":2,"character":5}},"instruction":"x"}`},
		{"code action target", Target{URI: "file:///w/a.go", Range: r},
			`{"uri":"file:///w/a.go","range":{"start":{"line":0,"character":0},"end":{"line":2,"character":5}}}`},
		{"args continuing a session", Args{Target: Target{URI: "file:///w"}, SessionID: "abc"}, `{"uri":"file:///w","instruction":"","sessionId":"abc"}`},
		{"revert", RevertResult{SessionID: "abc", RunID: "abc-3", Reverted: "abc-2", Restored: []string{"a.go"}, Stale: []RevertedFile{{Path: "b.go", Reason: "changed since"}}, Failed: []RevertedFile{}},
			`{"sessionId":"abc","runId":"abc-3","reverted":"abc-2","restored":["a.go"],"stale":[{"path":"b.go","reason":"changed since"}],"failed":[]}`},
		{"cancel", CancelResult{Cancelled: []string{}}, `{"cancelled":[]}`},
		{"edit text cancelled", EditTextResult{}, `{"text":null}`},
		{"edit text", EditTextResult{Text: &text}, `{"text":"git push --dry-run"}`},
		{"capabilities", Experimental{Agentls: ClientCapabilities{SaveDocuments: true}}, `{"agentls":{"saveDocuments":true,"editText":false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// E3: Args decodes the way the server reads it, with unknown fields
// refused; a missing instruction is empty.
func TestArgs_Decode(t *testing.T) {
	decode := func(s string) (Args, error) {
		var a Args
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.DisallowUnknownFields()
		err := dec.Decode(&a)
		return a, err
	}
	a, err := decode(`{"uri":"file:///w","range":{"start":{"line":1,"character":2},"end":{"line":3,"character":4}}}`)
	if err != nil || a.URI != "file:///w" || a.Range == nil || a.Range.End.Character != 4 || a.Instruction != "" {
		t.Errorf("got %+v, %v", a, err)
	}
	if _, err := decode(`{"uri":"file:///w","prompt":"x"}`); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// E18, E21 (issue 28): each "always" answer's title says its scope, and
// the three are told apart by title alone.
func TestActionAlways_E21_TitlesSayTheirScope(t *testing.T) {
	for title, scope := range map[string]string{ActionAlwaysSession: "session", ActionAlwaysWorkspace: "workspace", ActionAlwaysEverywhere: "everywhere"} {
		if !strings.HasPrefix(title, "Always ") || !strings.Contains(title, scope) {
			t.Errorf("%q does not say its scope %q", title, scope)
		}
	}
}

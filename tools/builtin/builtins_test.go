package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

func TestBuiltins_B1_Registry(t *testing.T) {
	reg := tools.NewRegistry()
	reg.MustRegister(All()...) // panics on a bad name, schema or risk
	risks := map[string]tools.Risk{"read_file": tools.RiskRead, "list_dir": tools.RiskRead, "search": tools.RiskRead,
		"edit_file": tools.RiskWrite, "write_file": tools.RiskWrite, "report_finding": tools.RiskNone, "human_confirm": tools.RiskNone, "run_command": tools.RiskExecute,
		"sql_query": tools.RiskRead, "http_fetch": tools.RiskNetwork, "calculator": tools.RiskNone}
	for _, tool := range All() {
		if risks[tool.Name] != tool.Risk {
			t.Errorf("%s risk = %s; want %s", tool.Name, tool.Risk, risks[tool.Name])
		}
		if d := tool.Description; d == "" || len(d) > 300 || strings.Count(d, "\n") > 2 {
			t.Errorf("%s description must be 1-3 short lines, got %d bytes", tool.Name, len(d))
		}
		if !strings.Contains(string(tool.Schema), `"additionalProperties": false`) {
			t.Errorf("%s schema allows unknown fields", tool.Name)
		}
	}
}

func TestGateway_T2_UnknownTool(t *testing.T) {
	h := newHarness(t)
	te := wantErr(t, h.callWith(t, &tools.GatewayOptions{Allowed: readTools}, "delete_everything", `{}`), tools.CodeUnknownTool, "")
	wantContains(t, te.Recovery, "read_file", "list_dir", "search")
	// Registered but not offered in this run.
	wantErr(t, h.callWith(t, &tools.GatewayOptions{Allowed: append(slices.Clone(readTools), "report_finding")}, "write_file", `{"path":"a","content":"b"}`), tools.CodeUnknownTool, "")
}

func TestGateway_T1_InvalidJSON(t *testing.T) {
	h := newHarness(t)
	for _, args := range []string{`{"path":`, `{"path":"a"} {"path":"b"}`, `[1]`, `"src/main.go"`, `nul`} {
		te := wantErr(t, h.call(t, "read_file", args), tools.CodeInvalidArgs, "")
		wantContains(t, te.Recovery, `"path"`) // the schema hint (A3)
	}
}

func TestGateway_T3_SchemaViolations(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("x", 2001)
	edits51 := make([]map[string]string, 51)
	for i := range edits51 {
		edits51[i] = map[string]string{"old_text": "a", "new_text": "b"}
	}
	cases := []struct {
		name, tool string
		args       any
		field      string
		reason     string // part of the reason, if set
	}{
		{"missing field", "read_file", `{}`, "", "path"},
		{"unknown field", "read_file", `{"path":"README.md","bogus":1}`, "", "bogus"},
		{"wrong type", "read_file", `{"path":5}`, "path", ""},
		{"empty path", "read_file", `{"path":""}`, "path", ""},
		{"offset zero", "read_file", `{"path":"README.md","offset":0}`, "offset", ""},
		{"offset string", "read_file", `{"path":"README.md","offset":"3"}`, "offset", ""},
		{"offset fraction", "read_file", `{"path":"README.md","offset":1.5}`, "offset", ""},
		{"limit too big", "read_file", `{"path":"README.md","limit":5000}`, "limit", ""},
		{"list_dir missing path", "list_dir", `{}`, "", "path"},
		{"empty pattern", "search", `{"pattern":""}`, "pattern", ""},
		{"no edits", "edit_file", `{"path":"README.md","edits":[]}`, "edits", ""},
		{"too many edits", "edit_file", map[string]any{"path": "README.md", "edits": edits51}, "edits", ""},
		{"edit missing new_text", "edit_file", `{"path":"README.md","edits":[{"old_text":"a"}]}`, "edits.0", "new_text"},
		{"empty old_text", "edit_file", `{"path":"README.md","edits":[{"old_text":"","new_text":"x"}]}`, "edits.0.old_text", ""},
		{"edit unknown field", "edit_file", `{"path":"README.md","edits":[{"old_text":"a","new_text":"b","all":true}]}`, "edits.0", "all"},
		{"content too large", "write_file", map[string]any{"path": "big.txt", "content": strings.Repeat("x", 1<<20+1)}, "content", ""},
		{"content missing", "write_file", `{"path":"new.txt"}`, "", "content"},
		{"bad severity", "report_finding", `{"path":"README.md","line":1,"severity":"fatal","message":"m"}`, "severity", ""},
		{"line zero", "report_finding", `{"path":"README.md","line":0,"severity":"info","message":"m"}`, "line", ""},
		{"message too long", "report_finding", map[string]any{"path": "README.md", "line": 1, "severity": "info", "message": long}, "message", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			te := wantErr(t, h.call(t, c.tool, c.args), tools.CodeInvalidArgs, c.field)
			if c.reason != "" {
				wantContains(t, te.Reason, c.reason)
			}
		})
	}
	if len(h.edits.changes) != 0 || len(h.sink.got) != 0 {
		t.Error("an invalid call reached the editor")
	}
}

// TestGateway_T4_PathEscape: every path argument of every tool is checked
// by the sandbox policy; the error names the field and leaks nothing.
func TestGateway_T4_PathEscape(t *testing.T) {
	h := newHarness(t)
	h.symlink(t, "up", "..")
	h.symlink(t, "out", "{{OUTSIDE}}/secret.txt")
	h.symlink(t, "newlink", "{{OUTSIDE}}/new.txt")
	paths := []string{"../outside/secret.txt", h.outside + "/secret.txt", "up/outside/secret.txt", "out",
		"newlink", "file:///etc/passwd", "/proc/self/environ", "src/main.go\x00../../x", `C:..\secret.txt`}
	calls := map[string]func(p string) any{
		"read_file": func(p string) any { return map[string]any{"path": p} },
		"list_dir":  func(p string) any { return map[string]any{"path": p} },
		"search":    func(p string) any { return map[string]any{"pattern": "SECRET", "path": p} },
		"edit_file": func(p string) any {
			return map[string]any{"path": p, "edits": []any{map[string]string{"old_text": "TOP", "new_text": "x"}}}
		},
		"write_file":     func(p string) any { return map[string]any{"path": p, "content": "pwned"} },
		"report_finding": func(p string) any { return map[string]any{"path": p, "line": 1, "severity": "info", "message": "m"} },
	}
	for tool, args := range calls {
		for _, p := range paths {
			t.Run(tool+"/"+strings.Map(func(r rune) rune { return max(r, '_') }, p), func(t *testing.T) {
				te := wantErr(t, h.call(t, tool, args(p)), tools.CodePathOutsideRoot, "path")
				if strings.Contains(te.Reason+te.Recovery, "SECRET") {
					t.Errorf("reason leaks content: %+v", te)
				}
			})
		}
	}
	if len(h.edits.changes) != 0 || len(h.sink.got) != 0 || len(h.ws.reads) != 0 {
		t.Errorf("an escaping call went on: %d changes, %d findings, reads %q",
			len(h.edits.changes), len(h.sink.got), h.ws.reads)
	}
}

// TestGateway_E4_ReadOnlyRun: a plan run refuses changes even when a write
// tool is named or (by mistake) offered.
func TestGateway_E4_ReadOnlyRun(t *testing.T) {
	h := newHarness(t)
	edit := `{"path":"src/main.go","edits":[{"old_text":"hi","new_text":"bye"}]}`
	for _, opts := range []*tools.GatewayOptions{
		{Allowed: readTools, ReadOnly: true},
		{Allowed: writeTools, ReadOnly: true},
	} {
		wantErr(t, h.callWith(t, opts, "edit_file", edit), tools.CodeReadOnlyRun, "")
		wantErr(t, h.callWith(t, opts, "write_file", `{"path":"n.txt","content":"x"}`), tools.CodeReadOnlyRun, "")
		wantOK(t, h.callWith(t, opts, "read_file", `{"path":"src/main.go"}`))
	}
	if len(h.edits.changes) != 0 {
		t.Errorf("read-only run proposed %d changes", len(h.edits.changes))
	}
}

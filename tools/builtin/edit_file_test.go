package builtin

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

type edit struct {
	Old string `json:"old_text"`
	New string `json:"new_text"`
}

func editArgsJSON(path string, edits ...edit) map[string]any {
	return map[string]any{"path": path, "edits": edits}
}

// TestEditFile_B1_E6 covers matching (B1) and the proposal round trip to
// the editor (E6).
func TestEditFile_B1_E6(t *testing.T) {
	h := newHarness(t)
	h.write(t, "dup.go", "x := 1\nx := 1\n")
	h.write(t, "aaa.txt", "aaa\n")
	h.write(t, "crlf.txt", "one\r\ntwo\r\nthree\r\n")
	h.write(t, "indent.go", "func f() {\n\treturn 1\n}\n")
	h.write(t, "bin.dat", "a\x00b")
	h.symlink(t, "link.go", "src/main.go")
	cases := []struct {
		name  string
		args  any
		code  tools.Code // "" for success
		field string     // for errors
		hint  string     // part of the recovery
		want  string     // the proposed new content, for success
	}{
		{name: "success", args: editArgsJSON("src/main.go", edit{`println("hi")`, `println("bye")`}),
			want: strings.Replace(mainGo, "hi", "bye", 1)},
		{name: "edits in order", args: editArgsJSON("src/main.go", edit{`"hi"`, `"hi there"`}, edit{`hi there`, `hello`}),
			want: strings.Replace(mainGo, `"hi"`, `"hello"`, 1)},
		{name: "deletion", args: editArgsJSON("src/main.go", edit{"\n\tprintln(\"hi\")", ""}),
			want: "package main\n\nfunc main() {\n}\n"},
		{name: "through symlink", args: editArgsJSON("link.go", edit{"package main", "package app"}),
			want: strings.Replace(mainGo, "package main", "package app", 1)},
		{name: "CRLF file, LF old_text", args: editArgsJSON("crlf.txt", edit{"one\ntwo", "1\n2"}),
			want: "1\r\n2\r\nthree\r\n"},
		{name: "no match", args: editArgsJSON("src/main.go", edit{"goodbye", "x"}),
			code: tools.CodeNoMatch, field: "edits.0.old_text", hint: "copy old_text exactly"},
		{name: "no match in second edit", args: editArgsJSON("src/main.go", edit{"hi", "yo"}, edit{"hi", "x"}),
			code: tools.CodeNoMatch, field: "edits.1.old_text"},
		{name: "whitespace hint", args: editArgsJSON("indent.go", edit{"    return 1", "return 2"}),
			code: tools.CodeNoMatch, field: "edits.0.old_text", hint: "line 2"},
		{name: "ambiguous", args: editArgsJSON("dup.go", edit{"x := 1", "x := 2"}),
			code: tools.CodeAmbiguousMatch, field: "edits.0.old_text", hint: "more surrounding lines"},
		{name: "ambiguous overlapping", args: editArgsJSON("aaa.txt", edit{"aa", "b"}),
			code: tools.CodeAmbiguousMatch, field: "edits.0.old_text"},
		{name: "no-op edit", args: editArgsJSON("src/main.go", edit{"main", "main"}),
			code: tools.CodeInvalidArgs, field: "edits.0.new_text"},
		{name: "edits cancel out", args: editArgsJSON("src/main.go", edit{`"hi"`, `"yo"`}, edit{`"yo"`, `"hi"`}),
			code: tools.CodeInvalidArgs, field: "edits"},
		{name: "missing file", args: editArgsJSON("src/none.go", edit{"a", "b"}),
			code: tools.CodeNotFound, field: "path", hint: "write_file"},
		{name: "binary file", args: editArgsJSON("bin.dat", edit{"a", "b"}), code: tools.CodeInvalidArgs, field: "path"},
		{name: "directory", args: editArgsJSON("src", edit{"a", "b"}), code: tools.CodeInvalidArgs, field: "path"},
		{name: "git config", args: editArgsJSON(".git/config", edit{"[core]", "[core]\n\tfsmonitor = evil"}),
			code: tools.CodeProtectedPath, field: "path"}, // issue 22 item 10: protected, not invalid
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.edits.changes = nil
			res := h.call(t, "edit_file", c.args)
			if c.code != "" {
				te := wantErr(t, res, c.code, c.field)
				if c.hint != "" {
					wantContains(t, te.Recovery, c.hint)
				}
				if len(h.edits.changes) != 0 {
					t.Error("a failed edit was proposed")
				}
				return
			}
			var got struct {
				Path    string              `json:"path"`
				Applied bool                `json:"applied"`
				Hunks   []tools.HunkOutcome `json:"hunks"`
				Saved   bool                `json:"saved"`
			}
			if err := json.Unmarshal([]byte(wantOK(t, res)), &got); err != nil || !got.Applied || !got.Saved || len(got.Hunks) != 1 {
				t.Errorf("result = %s (%v)", res.Content, err)
			}
			if len(h.edits.changes) != 1 {
				t.Fatalf("%d changes proposed; want 1", len(h.edits.changes))
			}
			ch := h.edits.changes[0]
			if string(ch.New) != c.want || ch.Tool != "edit_file" || ch.Create || ch.Path != got.Path {
				t.Errorf("change = %+v, new %q; want new %q", ch, ch.New, c.want)
			}
		})
	}
}

// TestEditFile_E9_EditsTheBuffer: the edit is computed against the unsaved
// buffer, and Old carries what it was computed against (T17).
func TestEditFile_E9_EditsTheBuffer(t *testing.T) {
	h := newHarness(t)
	h.ws.overlay["src/main.go"] = "package main // unsaved\n"
	wantOK(t, h.call(t, "edit_file", editArgsJSON("src/main.go", edit{"unsaved", "edited"})))
	ch := h.edits.changes[0]
	if string(ch.Old) != "package main // unsaved\n" || string(ch.New) != "package main // edited\n" || ch.Path != "src/main.go" {
		t.Errorf("change = old %q new %q path %q", ch.Old, ch.New, ch.Path)
	}
}

// TestEditFile_E6_Outcomes: what the editor answers becomes the result.
func TestEditFile_E6_Outcomes(t *testing.T) {
	h := newHarness(t)
	args := editArgsJSON("src/main.go", edit{"hi", "yo"})
	h.edits.outcome = &tools.EditOutcome{Applied: false, Reason: "user declined"}
	te := wantErr(t, h.call(t, "edit_file", args), tools.CodeApprovalDenied, "")
	wantContains(t, te.Reason, "user declined")
	h.edits.outcome = nil
	wantErr(t, h.call(t, "edit_file", args), tools.CodeApprovalDenied, "")
	h.edits.outcome = &tools.EditOutcome{Applied: true, Saved: false, Reason: "hunk 2 changed by the user"}
	wantContains(t, wantOK(t, h.call(t, "edit_file", args)), `"applied":true`, `"hunks":[]`, `"saved":false`, "hunk 2")
	h.edits.err = errors.New("connection closed")
	wantErr(t, h.call(t, "edit_file", args), tools.CodeInternal, "")
	h.noEdits = true
	wantErr(t, h.call(t, "edit_file", args), tools.CodeUnavailable, "")
	wantErr(t, h.call(t, "write_file", `{"path":"x.txt","content":"x"}`), tools.CodeUnavailable, "")
}

func TestWriteFile_B1_E6(t *testing.T) {
	h := newHarness(t)
	h.symlink(t, "inlink", "src/created.go")
	wantOK(t, h.call(t, "write_file", `{"path":"pkg/new.go","content":"package pkg\n"}`))
	wantOK(t, h.call(t, "write_file", `{"path":"README.md","content":"# new\n"}`))
	wantOK(t, h.call(t, "write_file", `{"path":"inlink","content":""}`))
	if got := wantOK(t, h.call(t, "write_file", `{"path":"src/main.go","content":`+jsonString(mainGo)+`}`)); !strings.Contains(got, "nothing to change") {
		t.Errorf("unchanged write = %q", got)
	}
	ch := h.edits.changes
	if len(ch) != 3 {
		t.Fatalf("%d changes; want 3", len(ch))
	}
	if c := ch[0]; c.Path != "pkg/new.go" || !c.Create || c.Old != nil || string(c.New) != "package pkg\n" || c.Tool != "write_file" {
		t.Errorf("create = %+v", c)
	}
	if c := ch[1]; c.Path != "README.md" || c.Create || string(c.Old) != "# demo\n" || string(c.New) != "# new\n" {
		t.Errorf("replace = %+v", c)
	}
	if c := ch[2]; c.Path != "src/created.go" || !c.Create {
		t.Errorf("dangling inside symlink = %+v", c)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".git/config", "sub/.GIT/hooks/x"} {
		wantErr(t, h.call(t, "write_file", map[string]string{"path": p, "content": "#!/bin/sh\n"}), tools.CodeProtectedPath, "path")
	}
	wantErr(t, h.call(t, "write_file", `{"path":"src","content":"x"}`), tools.CodeInvalidArgs, "path")
	wantErr(t, h.call(t, "write_file", `{"path":".","content":"x"}`), tools.CodeInvalidArgs, "path")
	h.edits.outcome = &tools.EditOutcome{Reason: "rejected in diff preview"}
	wantErr(t, h.call(t, "write_file", `{"path":"other.txt","content":"x"}`), tools.CodeApprovalDenied, "")
	if len(h.edits.changes) != 4 {
		t.Errorf("%d changes; want 4", len(h.edits.changes))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

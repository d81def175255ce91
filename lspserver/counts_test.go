package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// withTool returns the built-in registry with the Run of tool name
// replaced by run.
func withTool(name string, run func(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error)) *tools.Registry {
	reg := tools.NewRegistry()
	for _, tl := range builtin.All() {
		if tl.Name == name {
			tl.Run = run
		}
		reg.MustRegister(tl)
	}
	return reg
}

// E18 (issue 24 item 1): Neovim refuses an edit whose buffer or file
// changed with a failureReason that starts with "stale:". That is a stale
// refusal, counted per hunk as stale, and the model is told stale_file;
// not a rejection by the user.
func TestServer_E18_NeovimStaleReasonIsStale(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true)})
	ed := newEditor(h)
	ed.answer = &applyAnswer{Applied: false, FailureReason: "stale: edit is for version 1, a.go is at 2"}
	ed.open("a.go", 1, nil)

	res := h.mustRun(command.Execute, execArg(h))
	if e := res.Edits; e.Proposed != 2 || e.Stale != 2 || e.Applied != 0 || e.Rejected != 0 {
		t.Errorf("edits = %+v, want 2 proposed, 2 stale, 0 rejected", e)
	}
	if r := h.editResult("e1"); r.Code != "stale_file" {
		t.Errorf("tool result %+v, want stale_file", r)
	}
}

// E18 (issue 26 item 7): a change a tool refuses as stale before it was
// proposed (the file changed after the model read it) is counted as stale,
// not left out (edits 0/0/0).
func TestServer_E18_StaleBeforeProposalCounted(t *testing.T) {
	var root string
	reg := withTool("read_file", func(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
		env.Reads.Record("a.go", []byte(twoFuncs))
		// Someone changes the file right after the model read it.
		err := os.WriteFile(root+"/a.go", []byte(strings.Replace(twoFuncs, "filler", "changed", 1)), 0o644)
		return tools.Result{Content: twoFuncs}, err
	})
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) { o.Registry = reg }})
	root = h.root
	newEditor(h)

	res := h.mustRun(command.Execute, execArg(h))
	if r := h.editResult("e1"); r.Code != "stale_file" {
		t.Fatalf("tool result %+v, want stale_file", r)
	}
	if e := res.Edits; e.Stale != 1 || e.Proposed != 0 || e.Applied != 0 || e.Rejected != 0 {
		t.Errorf("edits = %+v, want 1 stale, nothing proposed", e)
	}
	if n := len(h.c.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit, want 0", n)
	}
}

// E18: the files a command created and deleted that landed are named in
// the counts; one created and deleted again in the same run is neither.
func TestServer_E18_CommandFilesNamed(t *testing.T) {
	calls := 0
	reg := withTool("read_file", func(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
		calls++
		if calls == 1 {
			return tools.Result{Content: "ok", Files: []tools.FileLanded{{Path: "gen/new.go", Change: "added"},
				{Path: "tmp.txt", Change: "added"}, {Path: "old.go", Change: "deleted"}, {Path: "a.go", Change: "changed"}}}, nil
		}
		return tools.Result{Content: "ok", Files: []tools.FileLanded{{Path: "tmp.txt", Change: "deleted"}}}, nil
	})
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"tool_calls":[{"id":"r2","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"content":"Done."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) { o.Registry = reg }})
	newEditor(h)

	e := h.mustRun(command.Execute, execArg(h)).Edits
	if !slices.Equal(e.Created, []string{"gen/new.go"}) || !slices.Equal(e.Deleted, []string{"old.go"}) {
		t.Errorf("created %q, deleted %q; want [gen/new.go], [old.go]", e.Created, e.Deleted)
	}
}

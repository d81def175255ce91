package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	agentsession "github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// deletingEditor is newEditor's editor that also applies CreateFile and
// DeleteFile operations, as VS Code does: by the file's path, following
// whatever the directories on the way lead to.
func deletingEditor(h *harness) *editor {
	e := newEditor(h)
	h.c.Handle("workspace/applyEdit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p applyParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		deleted := false
		for _, dc := range p.Edit.DocumentChanges {
			path := uri.URI(dc.URI).FsPath()
			switch dc.Kind {
			case "create":
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return applyAnswer{FailureReason: err.Error()}, nil
				}
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					return applyAnswer{FailureReason: err.Error()}, nil
				}
				f.Close()
			case "delete":
				if err := os.Remove(path); err != nil {
					return applyAnswer{FailureReason: err.Error()}, nil
				}
				deleted = true
			}
		}
		if deleted {
			return applyAnswer{Applied: true}, nil
		}
		return e.applyEdit(ctx, raw)
	})
	return e
}

// deleteCaps is clientCaps(true, true, false) with the delete resource
// operation, which reverting a created file needs.
func deleteCaps() map[string]any {
	caps := clientCaps(true, true, false)
	we := caps["workspace"].(map[string]any)["workspaceEdit"].(map[string]any)
	we["resourceOperations"] = []string{"create", "delete"}
	return caps
}

// revertFailed returns the reason the revert gives for path in Failed.
func revertFailed(res *command.RevertResult, path string) (string, bool) {
	for _, f := range res.Failed {
		if f.Path == path {
			return f.Reason, true
		}
	}
	return "", false
}

// applyEditsFor counts the applyEdit requests from the n-th on that name
// rel.
func (h *harness) applyEditsFor(from int, rel string) int {
	n := 0
	for _, m := range h.c.Received("workspace/applyEdit")[from:] {
		if strings.Contains(string(m.Params), rel) {
			n++
		}
	}
	return n
}

// A16, S9, issue 21: a run writes docs/notes/HEAD (and edits a.go); an
// unasked command then replaces docs/notes with a symlink to ../.git.
// The revert must not delete .git/HEAD through it: the file is refused
// (Failed, "leads through a symlink (docs/notes)"), no applyEdit names
// it, .git/HEAD keeps its content, and a.go is still restored.
func TestServer_A16_S9_RevertRefusesSymlinkIntoGit(t *testing.T) {
	const (
		orig = "package a\n\nfunc A() {}\n"
		head = "ref: refs/heads/main\n"
	)
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"tool_calls":[{"id":"e1","name":"edit_file","arguments":{"path":"a.go","edits":[{"old_text":"func A","new_text":"func B"}]}}]}`,
		`{"tool_calls":[{"id":"w1","name":"write_file","arguments":{"path":"docs/notes/HEAD","content":"ref: refs/heads/main\n"}}]}`,
		`{"content":"Done."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": orig}, caps: deleteCaps()})
	deletingEditor(h)
	run := h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "instruction": "rename, take notes"})
	if run.Status != "done" || h.read("docs/notes/HEAD") != head || h.read("a.go") == orig {
		t.Fatalf("run %+v: docs/notes/HEAD %q, a.go %q", run, h.read("docs/notes/HEAD"), h.read("a.go"))
	}
	// The attack: docs/notes becomes a symlink to ../.git, whose HEAD has
	// the content the run left, so the revert finds nothing stale.
	if err := os.MkdirAll(h.path(".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.path(".git/HEAD"), []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.path("docs/notes")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.git", h.path("docs/notes")); err != nil {
		t.Fatal(err)
	}
	before := len(h.c.Received("workspace/applyEdit"))
	res, err := h.revert(map[string]any{"runId": run.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(h.path(".git/HEAD")); err != nil || string(got) != head {
		t.Fatalf(".git/HEAD after the revert: %q, %v", got, err)
	}
	reason, failed := revertFailed(res, "docs/notes/HEAD")
	if !failed || !strings.HasPrefix(reason, "refused: docs/notes/HEAD") || !strings.Contains(reason, "leads through a symlink (docs/notes)") {
		t.Errorf("docs/notes/HEAD: failed %v, reason %q; result %+v", failed, reason, res)
	}
	if len(res.Restored) != 1 || res.Restored[0] != "a.go" || len(res.Failed) != 1 || len(res.Stale) != 0 {
		t.Errorf("revert %+v, want a.go restored and docs/notes/HEAD failed", res)
	}
	if got := h.read("a.go"); got != orig {
		t.Errorf("a.go after the revert: %q", got)
	}
	if n := h.applyEditsFor(before, "docs/notes"); n != 0 {
		t.Errorf("%d applyEdit requests for docs/notes/HEAD", n)
	}
	if !h.loggedWarning("docs/notes/HEAD leads through a symlink") {
		t.Error("no warning tells the user the file was refused")
	}
}

// loggedWarning reports whether a window/logMessage contains text.
func (h *harness) loggedWarning(text string) bool {
	for _, m := range h.c.Received("window/logMessage") {
		if strings.Contains(string(m.Params), text) {
			return true
		}
	}
	return false
}

// A16, S9, E15, issue 21: a run whose changes include control paths at
// any depth and in any letter case (recorded through the session API: a
// command's change set can hold them) reverts none of them, neither
// restoring nor deleting a file the run created — each is in
// Failed as a control path, its content stays, no applyEdit names it —
// while the ordinary file of the same run is restored, and the revert
// run's summary says how many were refused.
func TestServer_A16_S9_RevertRefusesControlPaths(t *testing.T) {
	state := t.TempDir()
	h := start(t, setup{files: map[string]string{"a.go": "package a\n"}, caps: deleteCaps(),
		opts: func(o *lspserver.Options) { o.StateDir = state }})
	deletingEditor(h)
	st, err := agentsession.Open(state, h.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sess.Begin(h.ctx(), agent.ModeExecute, "x")
	if err != nil {
		t.Fatal(err)
	}
	// sub/.git/hooks/pre-commit is one the run created: the revert would
	// delete it.
	control := map[string]string{"sub/.git/config": ".git", ".VSCode/tasks.json": ".vscode", "x/.AgentLS/hooks.json": ".agentls",
		"a/.envrc": ".envrc", "sub/.git/hooks/pre-commit": ".git"}
	changes := []string{"notes.txt", "sub/.git/config", ".VSCode/tasks.json", "x/.AgentLS/hooks.json", "a/.envrc", "sub/.git/hooks/pre-commit"}
	for _, p := range changes {
		created := strings.HasSuffix(p, "pre-commit")
		if err := r.Keep(p, []byte("before\n"), !created); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(h.path(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		h.writeFile(p, "after\n")
		r.Changed(p, []byte("after\n"), true)
	}
	r.End(agent.StatusDone, 1, "changed control files")
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	before := len(h.c.Received("workspace/applyEdit"))
	res, err := h.revert(map[string]any{"runId": r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored) != 1 || res.Restored[0] != "notes.txt" || len(res.Failed) != len(control) || len(res.Stale) != 0 {
		t.Errorf("revert %+v, want notes.txt restored and %d failed", res, len(control))
	}
	if got := h.read("notes.txt"); got != "before\n" {
		t.Errorf("notes.txt after the revert: %q", got)
	}
	for p, name := range control {
		reason, failed := revertFailed(res, p)
		if !failed || !strings.Contains(reason, "refused: "+p+" is a control path ("+name+")") {
			t.Errorf("%s: failed %v, reason %q", p, failed, reason)
		}
		if got := h.read(p); got != "after\n" {
			t.Errorf("%s changed to %q", p, got)
		}
		if n := h.applyEditsFor(before, p); n != 0 {
			t.Errorf("%d applyEdit requests for %s", n, p)
		}
	}
	// The revert run, as the session records it, says so.
	st2, err := agentsession.Open(state, h.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	summary := ""
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		snap, err := st2.Inspect(res.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		runs := snap.Runs()
		if summary = runs[len(runs)-1].Summary; summary != "" {
			break
		}
	}
	if !strings.Contains(summary, "5 failed (5 refused") {
		t.Errorf("revert run summary %q", summary)
	}
}

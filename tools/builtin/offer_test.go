package builtin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

// TestGateway_I16_WithheldToolRefusedWithWhy: a tool the run withholds
// (issue 16: it cannot be used in this run) is refused before anything
// else with unavailable, "not offered in this run" and why, never runs,
// never asks, and is audited as a deny; the refusal holds for a
// sub-agent's subset too. A withheld name that is not even registered
// gets the same answer.
func TestGateway_I16_WithheldToolRefusedWithWhy(t *testing.T) {
	var runs atomic.Int32
	reg := tools.NewRegistry()
	reg.MustRegister(execTool(&runs), humanConfirmTool())
	ap := &fakeApprover{answer: tools.AnswerApprove}
	var audit bytes.Buffer
	r := mustGateway(t, reg, &tools.GatewayOptions{Root: t.TempDir(), Approver: ap, Audit: tools.NewAuditLog(&audit),
		Allowed:  []string{"human_confirm"},
		Withheld: map[string]string{"exec_thing": "no runner in this test", "sql_query": "the workspace has no SQLite file"}})
	for _, gw := range []*tools.Gateway{r, r.Subset([]string{"human_confirm", "exec_thing"})} {
		for name, why := range map[string]string{"exec_thing": "no runner in this test", "sql_query": "no SQLite file"} {
			res, err := gw.Call(t.Context(), name, `{"cmd":"make"}`)
			if err != nil {
				t.Fatal(err)
			}
			te := wantErr(t, res, tools.CodeUnavailable, "")
			if !strings.Contains(te.Reason, name+" is not offered in this run: ") || !strings.Contains(te.Reason, why) ||
				te.Recovery != "use only human_confirm" {
				t.Errorf("%s: refusal %+v", name, te)
			}
		}
	}
	if runs.Load() != 0 || ap.asked.Load() != 0 {
		t.Errorf("a withheld tool ran %d times, asked %d times", runs.Load(), ap.asked.Load())
	}
	if !strings.Contains(audit.String(), `"rule":"run.not_offered"`) || !strings.Contains(audit.String(), `"decision":"deny"`) {
		t.Errorf("audit misses the refusal:\n%s", audit.String())
	}
	for _, tl := range r.Tools() {
		if tl.Name != "human_confirm" {
			t.Errorf("offered %s", tl.Name)
		}
	}
}

// TestWorkspaceHasSQLite_I16: the probe that decides whether execute runs
// offer sql_query finds a SQLite file by extension and header at any depth
// (breadth first), ignores look-alikes, symlinks, FIFOs and the skipped
// directories, and answers true (offer it) when its bound stops it early
// or the root cannot be read.
func TestWorkspaceHasSQLite_I16(t *testing.T) {
	const db = sqliteMagic + "\x10\x00\x02\x02"
	outside := filepath.Join(t.TempDir(), "real.db")
	writeFile(t, outside, db)
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		want  bool
	}{
		{"empty", func(*testing.T, string) {}, false},
		{"go_file_only", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "main.go"), "package main\n") }, false},
		{"top_level_db", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "app.db"), db) }, true},
		{"nested_sqlite3_upper_case", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "a/b/c/DATA.SQLITE3"), db) }, true},
		{"db_extension_not_sqlite", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "berkeley.db"), "\x00\x06\x15\x61") }, false},
		{"empty_db_file", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "new.db"), "") }, false},
		{"sqlite_header_without_extension", func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "data"), db) }, false},
		{"symlink_to_outside_db", func(t *testing.T, root string) { must(t, os.Symlink(outside, filepath.Join(root, "link.db"))) }, false},
		{"symlinked_dir_outside", func(t *testing.T, root string) {
			must(t, os.Symlink(filepath.Dir(outside), filepath.Join(root, "dir")))
		}, false},
		{"git_and_node_modules_skipped", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".git/x.db"), db)
			writeFile(t, filepath.Join(root, "node_modules/pkg/y.sqlite"), db)
		}, false},
		{"bound_reached_fails_open", func(t *testing.T, root string) {
			for i := range sqliteProbeEntries + 1 {
				writeFile(t, filepath.Join(root, fmt.Sprintf("f%04d.go", i)), "")
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			start := time.Now()
			if got := WorkspaceHasSQLite(root); got != tc.want {
				t.Errorf("WorkspaceHasSQLite = %v, want %v", got, tc.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("the probe took %v", d)
			}
		})
	}
	if !WorkspaceHasSQLite(filepath.Join(t.TempDir(), "missing")) {
		t.Error("an unreadable root must keep sql_query offered")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

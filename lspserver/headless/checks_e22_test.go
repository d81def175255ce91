package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/headless"
	"github.com/agentls/agentls/sandbox/exec"
)

// E22, issue 28: before an edit's question is shown, the project's cheap
// checks run on a copy-on-write view holding the proposed file, and the
// question shows their outcome, within the budget; the workspace is not
// touched by them.

// checksRun runs execute headless in a workspace of files, the scripted
// model writing path with content, the user's config.json holding
// userConfig ("" for none). With approve never it asserts that the
// workspace tree (contents, modes, mtimes) is exactly as before.
func checksRun(t *testing.T, files map[string]string, path, content, userConfig string, o headless.Options) (dir, out string, took time.Duration) {
	t.Helper()
	if l := testExec.Layers(); !l.Has(exec.LayerStaging) {
		t.Skipf("staging is missing here, so no check can run: %s", l.Missing[exec.LayerStaging])
	}
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if userConfig == "" {
		// The detected checks, with a budget a go build in the sandbox of
		// a loaded machine fits in (the default is 3 s).
		userConfig = `{"proposal_checks": {"budget_seconds": 60}}`
	}
	if userConfig != "" {
		os.MkdirAll(filepath.Join(cfg, "agentls"), 0o755)
		userConfig = strings.ReplaceAll(userConfig, "$WS", dir)
		os.WriteFile(filepath.Join(cfg, "agentls", "config.json"), []byte(userConfig), 0o600)
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	before := treeOf(t, dir)
	call, _ := json.Marshal(map[string]any{"tool_calls": []map[string]any{{"id": "c1", "name": "write_file",
		"arguments": map[string]string{"path": path, "content": content}}}})
	s, err := script.Parse([]byte(string(call) + "\n" + `{"content": "Done."}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := script.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	var stdout, stderr bytes.Buffer
	o.Mode, o.Instruction, o.Dir, o.Stdout, o.Stderr = agent.ModeExecute, "add "+path, dir, &stdout, &stderr
	o.Server = &lspserver.Options{Exec: testExec, NewModel: func() (agent.Model, error) {
		return openai.New(&openai.Options{BaseURL: srv.URL, Model: "scripted", MaxRetries: -1})
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	headless.Exec(ctx, &o)
	took = time.Since(start)
	out = stdout.String() + stderr.String()
	if o.Approve == headless.ApproveNever {
		if after := treeOf(t, dir); !maps.Equal(before, after) {
			t.Errorf("the workspace changed:\nbefore %v\nafter  %v\noutput:\n%s", before, after, out)
		}
	}
	return dir, out, took
}

// treeOf is every entry under dir with its mode, mtime and content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		out[p] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(data)
		return nil
	})
	return out
}

var never = headless.Options{Approve: headless.ApproveNever}

const e22GoMod = "module example.com/e22\n\ngo 1.21\n"

func TestHeadless_E22_GoBuildBreakShownBeforeAnythingLands(t *testing.T) {
	dir, out, _ := checksRun(t, map[string]string{"go.mod": e22GoMod, "main.go": "package main\n\nfunc main() {}\n"},
		"lib.go", "package main\n\nfunc helper() int { return undefinedThing }\n", "", never)
	if !strings.Contains(out, "checks: go build: 1 problem: lib.go:3: undefined: undefinedThing") {
		t.Fatalf("the question does not show the failing build:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "lib.go")); err == nil {
		t.Error("lib.go landed")
	}
	if !strings.Contains(out, "lib.go:1: error: in the proposed change: line 3: undefined: undefinedThing") {
		t.Errorf("no diagnostic on the proposed file:\n%s", out)
	}
}

// The problems are diagnostics of source "agentls checks" on the proposed
// file while the question is open, withdrawn once the user decided.
func TestHeadless_E22_DiagnosticsPublishedThenCleared(t *testing.T) {
	_, out, _ := checksRun(t, map[string]string{"go.mod": e22GoMod, "main.go": "package main\n\nfunc main() {}\n"},
		"main.go", "package main\n\nfunc main() {}\n\nfunc helper() int { return undefinedThing }\n", "", headless.Options{Approve: headless.ApproveNever, JSON: true})
	var seen []int
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Type   string `json:"type"`
			Params struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Source  string `json:"source"`
					Message string `json:"message"`
					Range   struct{ Start struct{ Line int } }
				}
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "diagnostics" || !strings.HasSuffix(ev.Params.URI, "/main.go") {
			continue
		}
		seen = append(seen, len(ev.Params.Diagnostics))
		for _, d := range ev.Params.Diagnostics {
			if d.Source != "agentls checks" || !strings.Contains(d.Message, "line 5: undefined: undefinedThing") || d.Range.Start.Line != 2 {
				t.Errorf("diagnostic %+v", d)
			}
		}
	}
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 0 {
		t.Errorf("main.go's diagnostics: %v, want one then none\n%s", seen, out)
	}
}

func TestHeadless_E22_PythonSyntaxErrorShown(t *testing.T) {
	_, out, _ := checksRun(t, map[string]string{"a.py": "X = 1\n"}, "b.py", "def f(:\n    pass\n", "", never)
	if !strings.Contains(out, "checks: compileall: 1 problem: b.py:1: SyntaxError") {
		t.Fatalf("the question does not show the syntax error:\n%s", out)
	}
}

func TestHeadless_E22_PassingProposalSaysItBuilds(t *testing.T) {
	dir, out, _ := checksRun(t, map[string]string{"go.mod": e22GoMod, "main.go": "package main\n\nfunc main() {}\n"},
		"lib.go", "package main\n\nfunc helper() int { return 2 }\n", "", headless.Options{Approve: headless.ApproveAll})
	if !strings.Contains(out, "(checks: builds; go vet clean)") {
		t.Fatalf("the question does not say it builds:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "lib.go")); err != nil || !strings.Contains(string(b), "return 2") {
		t.Errorf("lib.go did not land: %q %v", b, err)
	}
}

// A check past the user's budget: the question says pending and is not
// delayed past the budget (the check would run for ten minutes).
func TestHeadless_E22_OverBudgetIsPendingAndDoesNotDelay(t *testing.T) {
	cfg := `{"proposal_checks": {"budget_seconds": 0.5, "projects": {"$WS": {"no_detected": true,
		"commands": [{"name": "slow tests", "command": "sleep 600"}]}}}}`
	_, out, took := checksRun(t, map[string]string{"a.txt": "x\n"}, "b.txt", "y\n", cfg, never)
	if !strings.Contains(out, "checks: pending (still running after 0.5s") {
		t.Fatalf("the question does not say pending:\n%s", out)
	}
	if took > 20*time.Second {
		t.Errorf("the run took %v with a budget of 0.5s", took)
	}
}

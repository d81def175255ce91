package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llmtest"
)

// emacsInstruction is the instruction the test writes as a comment: eglot
// has no input box, so the comment is how it reaches agentls (E19).
const emacsInstruction = "make the greeting friendlier"

// emacsResult is what editors/emacs/test/e2e-eglot.el writes.
type emacsResult struct {
	Errors  []string `json:"errors"`
	Prompts []struct {
		Kind    string   `json:"kind"`
		Prompt  string   `json:"prompt"`
		Choices []string `json:"choices"`
		Default any      `json:"default"`
		Answer  string   `json:"answer"`
	} `json:"prompts"`
	Messages string `json:"messages"`
	Events   string `json:"events"` // eglot's wire log
}

// TestEmacsEglot_E19: agentls from Emacs 28 with eglot 1.9 (Debian's
// emacs-nox and elpa-eglot), whose handlers do the protocol: with the
// cursor under "// agentls: make the greeting friendlier" the code action
// "agentls: Execute “…”" runs the instruction (no input box needed); the
// executeCommand answers at once, so no "Timed out"; the run says it
// started and how it ended (status and hunk counts) in *Messages*; the
// approval question offers Deny first, so eglot's pre-selected answer is
// the safe one; the user approves the one diff, and the file on disk
// holds exactly that change. Needs AGENTLS_E2E=1.
func TestEmacsEglot_E19(t *testing.T) {
	t.Parallel() // issue 25: the long real-client suites overlap
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("the Emacs/eglot test runs with %s=1", e2eEnv)
	}
	emacs := needTool(t, "Emacs (apt: emacs-nox elpa-eglot)", "emacs")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildAgentls(t)
	model := llmtest.NewServer(emacsScript(t))
	t.Cleanup(model.Close)
	ws := copyWorkspace(t, repo)
	file := filepath.Join(ws, "main.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	withComment := strings.Replace(string(orig), "func greet(", "// agentls: "+emacsInstruction+"\nfunc greet(", 1)
	if err := os.WriteFile(file, []byte(withComment), 0o644); err != nil {
		t.Fatal(err)
	}
	resultFile := filepath.Join(t.TempDir(), "emacs-result.json")
	env := append(modelEnv(t, model), "AGENTLS_E2E_BIN="+bin, "AGENTLS_E2E_FILE="+file,
		"AGENTLS_E2E_LINE=6", "AGENTLS_E2E_RESULT="+resultFile)
	driver := filepath.Join(repo, "editors", "emacs", "test", "e2e-eglot.el")
	out, err := runBoundedFor(t, exec.Command(emacs, "--batch", "-q", "-l", driver), ws, env, 3*e2eScenarioTime)
	var res emacsResult
	data, rerr := os.ReadFile(resultFile)
	if rerr == nil {
		rerr = json.Unmarshal(data, &res)
	}
	if err != nil || rerr != nil {
		t.Fatalf("emacs: exit %v, result %v\noutput:\n%s", err, rerr, tail2(string(out), 6000))
	}
	checkEmacsRun(t, &res)
	want := strings.Replace(withComment, `"hello, "`, `"Hello there, "`, 1)
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Errorf("main.go on disk:\n%s\nwant exactly the approved change:\n%s", got, want)
	}
	checkEmacsModel(t, model)
	for _, p := range res.Prompts {
		t.Logf("eglot asked %s %q: choices %q, Enter gives %v, answered %q", p.Kind, firstLine(p.Prompt), p.Choices, p.Default, p.Answer)
	}
	if t.Failed() {
		t.Logf("*Messages*:\n%s\neglot's events (tail):\n%s", res.Messages, tail2(res.Events, 12000))
	}
}

// checkEmacsRun checks what the user saw: no error or timeout, the code
// action, the questions with the safe answer pre-selected, and the run's
// start and result messages.
func checkEmacsRun(t *testing.T, res *emacsResult) {
	t.Helper()
	for _, e := range res.Errors {
		t.Errorf("eglot signalled: %s", e)
	}
	if strings.Contains(res.Messages, "Timed out") {
		t.Error(`eglot reported "Timed out"`)
	}
	var picked, approved, confirmed bool
	for _, p := range res.Prompts {
		switch {
		case p.Kind == "y-or-n-p":
			confirmed = true
		case strings.Contains(p.Prompt, "Pick an action"):
			picked = p.Answer == "agentls: Execute “"+emacsInstruction+"”"
		default: // a window/showMessageRequest
			if p.Default != "Deny" && p.Default != "Not now" {
				t.Errorf("question %q pre-selects %v, want the safe answer (Deny or Not now); choices %q", firstLine(p.Prompt), p.Default, p.Choices)
			}
			approved = approved || p.Answer == "Approve"
		}
	}
	if !picked || !approved || !confirmed {
		t.Errorf("code action picked %v, diff approved %v, eglot's edit confirmed %v; prompts: %+v", picked, approved, confirmed, res.Prompts)
	}
	for _, want := range []string{
		"agentls execute started on main.go: “" + emacsInstruction + "”",
		"agentls execute done (run ",
		"edits: 1 hunks proposed, 1 applied, 0 rejected, 0 stale",
		"Made the greeting friendlier.",
	} {
		if !strings.Contains(res.Messages, want) {
			t.Errorf("*Messages* lacks %q", want)
		}
	}
}

// checkEmacsModel: the model got the comment's instruction and was told
// the edit landed.
func checkEmacsModel(t *testing.T, model *llmtest.Server) {
	t.Helper()
	if model.Remaining() != 0 {
		t.Errorf("the fake model has %d scripted turns left", model.Remaining())
	}
	reqs := modelRequests(t, model)
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Messages[len(reqs[0].Messages)-1].Content), emacsInstruction) {
		t.Errorf("the model's first request does not carry the comment's instruction")
	}
	var edited string
	for _, r := range reqs {
		if s, ok := r.toolResult("edit_1"); ok {
			edited = s
		}
	}
	if !strings.Contains(edited, `"applied":true`) {
		t.Errorf("the model should be told the edit landed; got %q", edited)
	}
}

// emacsScript: one edit_file with one hunk, then the answer. The model
// takes 11 s over its first turn, so the run outlasts eglot's 10 s limit
// for a request: a command that waited for the whole run would end in
// "Timed out".
func emacsScript(t *testing.T) llmtest.Script {
	t.Helper()
	edit, err := json.Marshal(map[string]any{"delay_ms": 11000, "tool_calls": []map[string]any{{"id": "edit_1", "name": "edit_file",
		"arguments": map[string]any{"path": "main.go", "edits": []map[string]string{{"old_text": `"hello, "`, "new_text": `"Hello there, "`}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	script, err := llmtest.ParseScript([]byte(string(edit) + "\n" + `{"content":"Made the greeting friendlier."}`))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llmtest"
)

// reviewNewFile is the file the scripted model creates: it must land with
// exactly these bytes (issue 24: Neovim added a blank line at the end).
const reviewNewFile = "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif got := greet(\"x\"); got != \"hello, x\" {\n\t\tt.Fatal(got)\n\t}\n}\n"

// TestNeovimReview_Issue24: issue 24's Neovim items in headless Neovim
// with the plugin and the real server (testdata/e2e/nvim/review.lua), on
// Debian's 0.7.2 and a current Neovim: a new file lands byte-identical
// (not stale) and :AgentRevert removes it (E18); the review is a buffer
// with mappings, left with <C-w>w and resumed, where :wq, q and a stray
// <CR> decide nothing and :AgentPending reopens it (E13); a partial
// acceptance (1 of 2 hunks) reaches the disk and the model hunk by hunk,
// and the plugin shows the server's counts alike in its notification and
// run buffer (E16, E18); the runs share one run window. Needs
// AGENTLS_E2E=1.
func TestNeovimReview_Issue24(t *testing.T) {
	eachNvim(t, "review.lua", reviewScript, []string{"AGENTLS_E2E_NEWFILE=" + reviewNewFile}, func(t *testing.T, model *llmtest.Server, res nvimResult, ok bool) {
		if ok {
			t.Logf("counts shown for the partial acceptance: %s", res.Shown)
		}
		if model.Remaining() != 0 {
			t.Errorf("the fake model has %d scripted turns left", model.Remaining())
		}
		var created, partial string
		for _, r := range modelRequests(t, model) {
			if s, ok := r.toolResult("new_1"); ok {
				created = s
			}
			if s, ok := r.toolResult("hunks_1"); ok {
				partial = s
			}
		}
		if !strings.Contains(created, `"applied":true`) || strings.Contains(created, "stale") {
			t.Errorf("the model should be told the new file landed as proposed; got %q", created)
		}
		if !strings.Contains(partial, `{"index":0,"lines":"6","applied":true}`) || !strings.Contains(partial, `{"index":1,"lines":"10","applied":false}`) {
			t.Errorf("the model should be told hunk 1 applied, hunk 2 rejected; got %q", partial)
		}
	})
}

// eachNvim runs testdata/e2e/nvim/script in a copy of the e2e workspace
// with the plugin, the real server and a scripted model, on Debian's
// Neovim 0.7.2 and a current one, then calls check. Needs AGENTLS_E2E=1.
func eachNvim(t *testing.T, script string, model func(*testing.T) llmtest.Script, env []string,
	check func(t *testing.T, model *llmtest.Server, res nvimResult, ok bool)) {
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("the Neovim review against the real server runs with %s=1", e2eEnv)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildAgentls(t)
	for _, n := range []struct{ name, path string }{
		{"0.7", "nvim"},
		{"current", filepath.Join(repo, ".cache", "nvim-current", "bin", "nvim")},
	} {
		t.Run(n.name, func(t *testing.T) {
			nvim := needTool(t, "Neovim "+n.name, n.path)
			m := llmtest.NewServer(model(t))
			t.Cleanup(m.Close)
			e := append(modelEnv(t, m), "AGENTLS_E2E_BIN="+bin, "AGENTLS_E2E_PLUGIN="+filepath.Join(repo, "editors", "nvim"))
			res, ok := runNvimScript(t, nvim, filepath.Join(repo, "testdata", "e2e", "nvim", script), copyWorkspace(t, repo), append(e, env...), "AGENTLS_E2E_RESULT")
			check(t, m, res, ok)
		})
	}
}

// reviewScript: write_file greet_test.go, then edit_file main.go with two hunks.
func reviewScript(t *testing.T) llmtest.Script {
	t.Helper()
	call := func(id, name string, args any) string {
		b, err := json.Marshal(map[string]any{"tool_calls": []map[string]any{{"id": id, "name": name, "arguments": args}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lines := []string{
		call("new_1", "write_file", map[string]string{"path": "greet_test.go", "content": reviewNewFile}),
		`{"content":"Added greet_test.go."}`,
		call("hunks_1", "edit_file", map[string]any{"path": "main.go", "edits": []map[string]string{
			{"old_text": `"hello, "`, "new_text": `"Hi, "`},
			{"old_text": `greet("world")`, "new_text": `greet("Earth")`},
		}}),
		`{"content":"Said hi; the user kept the world."}`,
	}
	script, err := llmtest.ParseScript([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// reasonText is what the user answers when asked why they reject a hunk.
const reasonText = "keep the world: the README shows it"

// TestNeovimReview_Issue28: issue 28's review items in headless Neovim
// with the plugin and the real server (testdata/e2e/nvim/review_reason.lua),
// on Debian's 0.7.2 and a current Neovim: r rejects a hunk and asks why,
// and the reason reaches the model's next request with that hunk; e edits
// a hunk before accepting it, the edited text lands, and the model is
// told the user changed its proposal, with the diff. Needs AGENTLS_E2E=1.
func TestNeovimReview_Issue28(t *testing.T) {
	eachNvim(t, "review_reason.lua", reasonScript, []string{"AGENTLS_E2E_REASON=" + reasonText}, func(t *testing.T, model *llmtest.Server, _ nvimResult, _ bool) {
		checkToldUser(t, model, "hunks_1")
	})
}

// checkToldUser checks that the model's next request after edit call id
// carries the user's reason on hunk 2 and their change to hunk 1.
func checkToldUser(t *testing.T, model *llmtest.Server, id string) {
	t.Helper()
	var got string
	for _, r := range modelRequests(t, model) {
		if s, ok := r.toolResult(id); ok {
			got = s
		}
	}
	var res struct {
		Reason string `json:"reason"`
		Hunks  []struct {
			Applied    bool   `json:"applied"`
			UserReason string `json:"user_reason"`
			UserChange string `json:"user_change"`
		} `json:"hunks"`
	}
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Hunks) != 2 {
		t.Fatalf("the model's tool result %q: %v", got, err)
	}
	if h := res.Hunks[1]; h.Applied || h.UserReason != reasonText {
		t.Errorf("hunk 2 should be rejected with the user's reason; the model was told %q", got)
	}
	if h := res.Hunks[0]; !h.Applied || !strings.Contains(h.UserChange, `+	return "Hey there, " + name`) ||
		!strings.Contains(res.Reason, "the user changed your proposal") {
		t.Errorf("the model should be told the user changed hunk 1; it was told %q", got)
	}
}

// reasonScript: edit_file main.go with two hunks, then a last answer.
func reasonScript(t *testing.T) llmtest.Script {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tool_calls": []map[string]any{{"id": "hunks_1", "name": "edit_file",
		"arguments": map[string]any{"path": "main.go", "edits": []map[string]string{
			{"old_text": `"hello, "`, "new_text": `"Hi, "`},
			{"old_text": `greet("world")`, "new_text": `greet("Earth")`},
		}}}}})
	if err != nil {
		t.Fatal(err)
	}
	script, err := llmtest.ParseScript([]byte(string(b) + "\n" + `{"content":"Noted what you changed."}`))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

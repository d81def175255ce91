package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testNvimRuns: E16 and #13 in headless Neovim with the plugin: the run
// view (a scratch buffer per run with the streamed text and each tool
// call's outcome, exit code 126 included), the statusline, :AgentRuns,
// plans kept as documents (:AgentPlans), :checkhealth agentls, and a clear
// message when the server binary is not on PATH (testdata/e2e/nvim/runs.lua).
func testNvimRuns(t *testing.T, repo, bin, nvim string) {
	model := startModel(t, repo, "nvim-runs")
	ws := copyWorkspace(t, repo)
	// A script without the execute bit: it exits 126 in the sandbox.
	if err := os.WriteFile(filepath.Join(ws, "build.sh"), []byte("echo building\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "nvim-runs-result.json")
	env := append(modelEnv(t, model),
		"AGENTLS_E2E_BIN="+bin,
		"AGENTLS_E2E_PLUGIN="+filepath.Join(repo, "editors", "nvim"),
		"AGENTLS_E2E_RESULT="+result,
		"AGENTLS_E2E_PLANS="+filepath.Join(t.TempDir(), "plans"),
	)
	out, err := runBounded(t, exec.Command(nvim, "--headless", "--clean", "-u",
		filepath.Join(repo, "testdata", "e2e", "nvim", "runs.lua")), ws, env)
	var res struct {
		OK       bool     `json:"ok"`
		Checks   []string `json:"checks"`
		Failures []string `json:"failures"`
		LSPLog   string   `json:"lsp_log"`
	}
	data, rerr := os.ReadFile(result)
	if rerr == nil {
		rerr = json.Unmarshal(data, &res)
	}
	if err != nil || rerr != nil || !res.OK {
		t.Errorf("headless nvim (runs.lua): exit %v, result file: %v\nfailed checks:\n  %s\noutput:\n%s",
			err, rerr, strings.Join(res.Failures, "\n  "), out)
		if res.LSPLog != "" {
			t.Logf("tail of the nvim LSP log %s:\n%s", res.LSPLog, tail(res.LSPLog, 40))
		}
		return
	}
	t.Logf("headless nvim, run view:\n  %s", strings.Join(res.Checks, "\n  "))
	if model.Remaining() != 0 {
		t.Errorf("the fake model has %d scripted turns left", model.Remaining())
	}
}

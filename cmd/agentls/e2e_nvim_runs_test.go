package main

import (
	"os"
	"path/filepath"
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
	env := append(modelEnv(t, model),
		"AGENTLS_E2E_BIN="+bin,
		"AGENTLS_E2E_PLUGIN="+filepath.Join(repo, "editors", "nvim"),
		"AGENTLS_E2E_PLANS="+filepath.Join(t.TempDir(), "plans"),
	)
	if _, ok := runNvimScript(t, nvim, filepath.Join(repo, "testdata", "e2e", "nvim", "runs.lua"), ws, env, "AGENTLS_E2E_RESULT"); !ok {
		return
	}
	if model.Remaining() != 0 {
		t.Errorf("the fake model has %d scripted turns left", model.Remaining())
	}
}

package main

import (
	"encoding/base64"
	"os"
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
	// The picture of :AgentPlan ++image=shot.png (issue 25): a real PNG start.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), png, 0o644); err != nil {
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
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	last := string(reqs[len(reqs)-1])
	if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png); !strings.Contains(last, `"image_url"`) || !strings.Contains(last, want) {
		t.Errorf("issue 25: the last request (:AgentPlan ++image=shot.png) has no image part with the PNG:\n%s", last)
	}
}

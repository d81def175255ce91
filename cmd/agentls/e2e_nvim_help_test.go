package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNeovimHelp: the Neovim plugin's :help (issue 23). On a copy of
// editors/nvim, :helptags accepts doc/agentls.txt, :help agentls opens it,
// every :Agent… command the plugin defines has its tag (a command added
// without help fails), every |link| names a tag, and plugin/agentls.lua
// defines the same commands as setup(), nothing when g:loaded_agentls is
// set (editors/nvim/test/help.lua). On Debian's 0.7.2 and on a current
// Neovim (.ci/nvim-current.sh). No server is needed; without nvim the test
// is skipped, unless AGENTLS_E2E=1 (.ci/install-e2e.sh), where that fails.
func TestNeovimHelp(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	nvims := []struct{ name, path string }{
		{"0.7", "nvim"},
		{"current", filepath.Join(repo, ".cache", "nvim-current", "bin", "nvim")},
	}
	for _, n := range nvims {
		t.Run(n.name, func(t *testing.T) {
			nvim := needTool(t, "Neovim "+n.name, n.path)
			t.Run("plugin", func(t *testing.T) { runNvimHelp(t, repo, nvim, false) })
			t.Run("loaded_agentls", func(t *testing.T) { runNvimHelp(t, repo, nvim, true) })
		})
	}
}

// runNvimHelp runs editors/nvim/test/help.lua on a copy of editors/nvim
// (:helptags writes doc/tags into it); guarded sets g:loaded_agentls first.
func runNvimHelp(t *testing.T, repo, nvim string, guarded bool) {
	t.Helper()
	plugin := filepath.Join(t.TempDir(), "nvim")
	if err := os.CopyFS(plugin, os.DirFS(filepath.Join(repo, "editors", "nvim"))); err != nil {
		t.Fatal(err)
	}
	// A doc/tags left in the checkout by a user's :helptags must not stand in.
	if err := os.Remove(filepath.Join(plugin, "doc", "tags")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AGENTLS_TEST_PLUGIN="+plugin)
	if guarded {
		env = append(env, "AGENTLS_TEST_LOADED=1")
	}
	runNvimScript(t, nvim, filepath.Join(plugin, "test", "help.lua"), t.TempDir(), env, "AGENTLS_TEST_RESULT")
}

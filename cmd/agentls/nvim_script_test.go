package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nvimResult is what a headless Neovim test script writes to its result
// file: every check that passed, every one that failed, and the client's
// LSP log.
type nvimResult struct {
	OK       bool     `json:"ok"`
	Checks   []string `json:"checks"`
	Failures []string `json:"failures"`
	LSPLog   string   `json:"lsp_log"`
	Prompts  []any    `json:"prompts"`
	// Shown is what a script records of what the plugin showed.
	Shown json.RawMessage `json:"shown,omitempty"`
}

// runNvimScript runs the Lua test script in headless nvim (--clean) in
// dir with env, telling it its result file through the variable
// resultVar. A failure — the exit, no result file, a failed check — is
// reported with the script's output and the tail of the LSP log; ok says
// whether it passed, and the passed checks are logged.
func runNvimScript(t *testing.T, nvim, script, dir string, env []string, resultVar string) (res nvimResult, ok bool) {
	t.Helper()
	result := filepath.Join(t.TempDir(), "nvim-result.json")
	env = append(env, resultVar+"="+result)
	out, err := runBounded(t, exec.Command(nvim, "--headless", "--clean", "-u", script), dir, env)
	data, rerr := os.ReadFile(result)
	if rerr == nil {
		rerr = json.Unmarshal(data, &res)
	}
	name := filepath.Base(script)
	if err != nil || rerr != nil || !res.OK {
		t.Errorf("headless nvim (%s): exit %v, result file: %v\nfailed checks:\n  %s\noutput:\n%s",
			name, err, rerr, strings.Join(res.Failures, "\n  "), out)
		if res.LSPLog != "" {
			t.Logf("tail of the nvim LSP log %s:\n%s", res.LSPLog, tail(res.LSPLog, 60))
		}
		return res, false
	}
	t.Logf("headless nvim (%s):\n  %s", name, strings.Join(res.Checks, "\n  "))
	return res, true
}

package main

import (
	"os"
	"path/filepath"
)

// helperName is the sandbox helper binary (cmd/agentls-sandbox) that
// agentls starts for each command when it lies next to agentls.
const helperName = "agentls-sandbox"

// sandboxHelper returns the path of agentls-sandbox next to this
// executable (symlinks resolved), for [exec.Options.Helper]; the runner
// checks the file (a regular file owned by this user or root that nobody
// else can write) and its version, and falls back to re-executing agentls
// (the same layers) when it is missing or refused. "" when the
// executable cannot be found.
func sandboxHelper() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), helperName)
}

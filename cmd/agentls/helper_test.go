package main

import (
	osexec "os/exec"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// installHelper builds the sandbox helper (cmd/agentls-sandbox) next to
// the agentls that the scripts run (testscript's copy of this test
// binary, first on PATH), so that they use it as an installed agentls
// does (issue 16), and returns both paths for scripts that make their own
// installs.
func installHelper(t *testing.T) (agentls, helper string) {
	t.Helper()
	agentls, err := osexec.LookPath("agentls")
	if err != nil {
		t.Fatalf("testscript's agentls: %v", err)
	}
	// Built like a test binary, so that its version matches this one's.
	helper, err = sandboxtest.BuildHelper(filepath.Dir(agentls), "-buildvcs=false")
	if err != nil {
		t.Fatal(err)
	}
	return agentls, helper
}

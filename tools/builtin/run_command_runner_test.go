package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestRunCommand_NoRunner: an Env without a process runner (agentls vet,
// a test) makes run_command a tool error that says so; nothing runs.
func TestRunCommand_NoRunner(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunCommand().Run(t.Context(), &tools.Env{Root: dir}, json.RawMessage(`{"command":"touch x"}`))
	if err != nil || !res.IsError || res.Code != tools.CodeUnavailable {
		t.Fatalf("got %+v, %v; want an unavailable tool error", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("the command ran")
	}
}

package builtin

import (
	"os"
	"testing"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// TestMain builds the sandbox helper binary (cmd/agentls-sandbox), so
// that run_command really runs its command through the sandbox runner in
// these tests (B2, T8), in the helper agentls ships; the test binary is
// the helper too (MaybeRunHelper), for the runner's fallback.
func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	helper, cleanup := sandboxtest.MustBuildHelper("-buildvcs=false")
	testExec = exec.New(&exec.Options{Helper: helper})
	code := m.Run()
	testExec.Close()
	cleanup()
	os.Exit(code)
}

// testExec is the process runner of the harness's runs.
var testExec *exec.Runner

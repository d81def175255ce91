package tools

import (
	"os"
	"testing"

	"github.com/agentls/agentls/sandbox/exec"
)

// TestMain lets the test binary act as the sandbox helper, so that
// run_command really runs its command through the sandbox runner in these tests
// (B2, T8): Exec re-executes /proc/self/exe, which is this binary.
func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	testExec = exec.New(nil)
	code := m.Run()
	testExec.Close()
	os.Exit(code)
}

// testExec is the process runner of the harness's runs.
var testExec *exec.Runner

package proposalcheck

import (
	"os"
	"testing"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// testExec is the sandbox runner of these tests: the real helper binary,
// as agentls ships it.
var testExec *exec.Runner

func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	helper, cleanup := sandboxtest.MustBuildHelper("-buildvcs=false")
	testExec = exec.New(&exec.Options{Helper: helper})
	code := m.Run()
	testExec.Close()
	cleanup()
	os.Exit(code)
}

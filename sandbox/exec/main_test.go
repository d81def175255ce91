package exec

import (
	"os"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// testRunner runs the tests' commands; tests of prestart make their own.
var testRunner *Runner

// testHelper is cmd/agentls-sandbox, built once by TestMain: the shared
// runner starts it as the helper, so the tests run against the binary
// agentls ships. The self re-exec fallback has tests of its own.
var testHelper string

// execHelperEnv hands a test binary re-run by a test (as another user)
// the helper built already.
const execHelperEnv = "AGENTLS_SANDBOX_TEST_HELPER"

// TestMain builds the helper binary, and lets the test binary act as the
// helper too for the runners without Options.Helper: Run then
// re-executes /proc/self/exe, which is this binary (the gopls trick).
func TestMain(m *testing.M) {
	MaybeRunHelper()
	// The probe cache of the test binary's runners: its own, not the
	// user's (issue 16).
	cacheDir, err := os.MkdirTemp("", "agentls-probe-cache-")
	if err != nil {
		panic(err)
	}
	probeCacheRoot = cacheDir
	cleanup := func() {}
	if testHelper = os.Getenv(execHelperEnv); testHelper == "" {
		testHelper, cleanup = sandboxtest.MustBuildHelper("-buildvcs=false")
	}
	testRunner = New(&Options{Helper: testHelper})
	code := m.Run()
	testRunner.Close()
	cleanup()
	os.RemoveAll(cacheDir)
	os.Exit(code)
}

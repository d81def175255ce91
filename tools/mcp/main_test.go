package mcp

import (
	"os"
	"testing"

	"github.com/agentls/agentls/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// self is a server config that runs this test binary as the test server
// (see [mcptest]).
func self(t *testing.T, env ...string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Command: exe, Env: mcptest.Env(env...)}
}

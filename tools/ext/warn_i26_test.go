package ext

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/mcp"
)

// B6, issue 26 item 6: a server that fails to start in the background
// before the front-end watches is still told, when it starts watching,
// as a warning that needs the user's attention.
func TestExtensions_B6_Issue26_EarlyWarningsKept(t *testing.T) {
	x := Start(t.Context(), &Options{Root: t.TempDir(), User: &Config{MCPServers: map[string]mcp.ServerConfig{
		"tickets": {Command: filepath.Join(t.TempDir(), "no-such-server")}}}})
	defer x.Close()
	x.Servers() // waits for the start, which fails
	var got []string
	x.OnWarning(func(_ context.Context, msg string, attention bool) {
		if attention {
			got = append(got, msg)
		}
	})
	if len(got) != 1 || !strings.Contains(got[0], "MCP server tickets did not start") {
		t.Errorf("warnings told: %q; want the failed start", got)
	}
}

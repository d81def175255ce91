package ext

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// Placeholders are the tools `agentls vet` offers for calls to configured MCP
// servers it did not start: named as the call names them, risk mcp, any
// object as arguments; their verdict is the policy's alone.
func Placeholders(o *Options, calls []string) []*tools.Tool {
	servers := map[string]bool{}
	for _, cfg := range []*Config{o.User, o.Project} {
		if cfg == nil {
			continue
		}
		for name := range cfg.MCPServers {
			servers[name] = true
		}
	}
	var out []*tools.Tool
	seen := map[string]bool{}
	for _, name := range calls {
		if seen[name] || !strings.HasPrefix(name, "mcp__") {
			continue
		}
		for s := range servers {
			prefix := strings.TrimSuffix(mcp.ToolName(s, "x"), "x")
			if prefix != "" && strings.HasPrefix(name, prefix) && len(name) > len(prefix) {
				seen[name] = true
				out = append(out, &tools.Tool{Name: name, Risk: tools.RiskMCP, Schema: []byte(`{"type":"object"}`),
					Check: func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
						return &tools.Verdict{Decision: tools.Allow, Rule: "mcp.not_started",
							Reason: "MCP server not started: arguments not checked against its schema (vet --start checks them)"}, nil
					},
					Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
						return tools.Fail(tools.CodeUnavailable, "", "not started", ""), nil
					}})
				break
			}
		}
	}
	return out
}

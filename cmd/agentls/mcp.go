package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools/mcp"
)

// mcpCmd is `agentls mcp list`: every configured MCP server started as a
// headless run would, its state, and its tools with the server's own
// (untrusted, capped) descriptions and annotations. A broken server is
// reported, not an error: the exit code is 0. Names, commands, errors and
// descriptions come from config files and servers: the text shows them
// with their control characters visible (T22); --json carries them as
// they are, JSON-escaped.
func (c *cli) mcp(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	rootFlag := fs.String("root", ".", "workspace root")
	asJSON := fs.Bool("json", false, "print the servers as JSON")
	if len(args) > 0 && args[0] == "list" {
		args = args[1:]
	} else if len(args) == 0 || !isHelp(args[0]) {
		return c.badUsage(name)
	}
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 0 {
		return c.badUsage(name)
	}
	root, err := resolveRoot(*rootFlag)
	if err != nil {
		return c.fail(name, err)
	}
	x := c.startExtensions(ctx, root, io.Discard)
	defer x.Close()
	servers := x.Servers()
	for _, e := range x.Untrusted {
		if e.Kind == "mcp" {
			servers = append(servers, mcp.Status{Name: e.Name, State: "untrusted", Why: "a project server not trusted as it is now: " + e.What + " (run `agentls trust`)"})
		}
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(servers)
		return 0
	}
	if len(servers) == 0 {
		fmt.Fprintln(c.stdout, `no MCP servers configured ("mcpServers" in the user config, or .agentls/mcp.json)`)
	}
	v := sandbox.Visible
	for _, s := range servers {
		line := fmt.Sprintf("%s: %s", v(s.Name), v(string(s.State)))
		if s.State == mcp.StateRunning {
			line += fmt.Sprintf(", %d tools", len(s.Tools))
		}
		if s.Why != "" {
			line += " — " + v(s.Why)
		}
		fmt.Fprintln(c.stdout, line)
		for _, t := range s.Tools {
			hints := ""
			if len(t.Hints) > 0 {
				hints = " [" + v(strings.Join(t.Hints, ", ")) + "]"
			}
			if t.Skipped != "" {
				hints += " (skipped: " + v(t.Skipped) + ")"
			}
			fmt.Fprintf(c.stdout, "  %s%s\n      %s\n", v(t.Name), hints, v(t.Description))
		}
	}
	return 0
}

// resolveRoot makes a --root absolute with symlinks resolved.
func resolveRoot(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", fmt.Errorf("--root: %v", err)
	}
	return root, nil
}

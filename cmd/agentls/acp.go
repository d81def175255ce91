package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/lspserver/acp"
)

// The acp subcommand: `agentls acp` speaks the Agent Client Protocol on
// stdio (E20), wired as serve is: the user's config read once, the same
// model, policy, audit log, sandbox runner and extensions.

func (c *cli) acp(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	sf := newServerFlags(fs)
	root := fs.String("root", "", "sessions must be in this directory (default: any absolute directory the client names)")
	if _, code, ok := c.parse(fs, args); !ok {
		return code
	}
	dir := ""
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			return c.fail(name, err)
		}
		dir = abs
	}
	log, opts, done, err := c.startServer(sf)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls: %v\n", err)
		return 1
	}
	defer done()
	err = acp.Serve(ctx, c.stdin, c.stdout, &acp.Options{Root: dir, StateDir: opts.StateDir, Logger: log, Version: buildVersion(),
		NewModel: opts.NewModel, LoadPolicy: opts.LoadPolicy, StartExtensions: c.extensionStarter(log, true),
		Exec: opts.Exec, Audit: opts.Audit, MaxTurns: opts.MaxTurns, ContextTokens: opts.ContextTokens, Strict: opts.Strict})
	if err != nil {
		return c.fail(name, err)
	}
	return 0
}

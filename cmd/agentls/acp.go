package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/agentls/agentls/lspserver/acp"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// The acp subcommand: `agentls acp` speaks the Agent Client Protocol on
// stdio (E20), wired as serve is: the user's config read once, the same
// model, policy, audit log, sandbox runner and extensions.

func (c *cli) acp(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	logFile := fs.String("log", "", "write logs to this file instead of stderr")
	verbose := fs.Bool("v", false, "debug logging")
	profile := profileFlag(fs, tools.ProfileEditor, "policy profile: editor, headless or ci")
	root := fs.String("root", "", "sessions must be in this directory (default: any absolute directory the client names)")
	if _, code, ok := c.parse(fs, args); !ok {
		return code
	}
	logw, closeLog, err := c.logWriter(*logFile)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls: %v\n", err)
		return 1
	}
	defer closeLog()
	dir := ""
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			return c.fail(name, err)
		}
		dir = abs
	}
	log := newLogger(logw, *verbose)
	opts, done := c.server(log, log, *profile, &exec.Options{Prestart: true, OnLayerMissing: func(layer, why string) {
		log.Warn("Sandbox layer missing; the others still apply", slog.String("layer", layer), slog.String("why", why))
	}})
	defer done()
	err = acp.Serve(ctx, c.stdin, c.stdout, &acp.Options{Root: dir, StateDir: opts.StateDir, Logger: log, Version: buildVersion(),
		NewModel: opts.NewModel, LoadPolicy: opts.LoadPolicy, StartExtensions: c.extensionStarter(log, true),
		Exec: opts.Exec, Audit: opts.Audit, MaxTurns: opts.MaxTurns, ContextTokens: opts.ContextTokens, Strict: opts.Strict})
	if err != nil {
		return c.fail(name, err)
	}
	return 0
}

package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/ext"
)

// trustPath is where the user's trust in project extensions is kept.
func trustPath(getenv func(string) string) string {
	if d := stateDir(getenv); d != "" {
		return filepath.Join(d, "trust.json")
	}
	return ""
}

// extOptions loads the user's and the project's extension config for
// root. A project file that cannot be used is reported and none of the
// project's entries run; the user's file errors are the model config's
// too, reported by the caller.
func extOptions(getenv func(string) string, root string, log *slog.Logger) *ext.Options {
	o := &ext.Options{Root: root, Trust: ext.OpenStore(trustPath(getenv)), Logger: log}
	// The model's settings share the file: their keys are known too.
	user, err := ext.LoadUser(agent.DefaultConfigPath(getenv), &agent.Config{})
	if err != nil {
		log.Warn("No hooks or MCP servers from the user config", slog.String("err", err.Error()))
	}
	o.User = user
	project, err := ext.LoadProject(root)
	if err != nil {
		log.Warn("No hooks or MCP servers from the project", slog.String("err", err.Error()))
	}
	o.Project = project
	return o
}

// startExtensions is lspserver's StartExtensions: interactive (agentls
// serve) asks the editor's user about untrusted project entries; headless
// runs never do, so --approve=all cannot trust a project by accident.
func startExtensions(getenv func(string) string, log *slog.Logger, interactive bool) func(context.Context, string, tools.Approver) lspserver.Extensions {
	return func(ctx context.Context, root string, ask tools.Approver) lspserver.Extensions {
		o := extOptions(getenv, root, log)
		if interactive {
			o.Ask = ask
		}
		return ext.Start(ctx, o)
	}
}

// warnLogger shows warnings (servers skipped or removed, hooks that
// failed) on w even when debug logging is off, and everything with -v.
func warnLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

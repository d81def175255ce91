package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

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

// extensionStarter is lspserver's StartExtensions: interactive (agentls
// serve) asks the editor's user about untrusted project entries; headless
// runs never do, so --approve=all cannot trust a project by accident.
func (c *cli) extensionStarter(log *slog.Logger, interactive bool) func(context.Context, string, tools.Approver) lspserver.Extensions {
	return func(ctx context.Context, root string, ask tools.Approver) lspserver.Extensions {
		o := c.extOptions(root, log)
		if interactive {
			o.Ask = ask
		}
		return ext.Start(ctx, o)
	}
}

// warnLogger shows warnings (servers skipped or removed, hooks that
// failed) on w even when debug logging is off, as plain lines a person
// reads ([plainHandler]); with -v, everything, as log records.
func warnLogger(w io.Writer, verbose bool) *slog.Logger {
	if verbose {
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(&plainHandler{mu: new(sync.Mutex), w: w, level: slog.LevelWarn})
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools/ext"
)

// cli is what a subcommand runs with: the process's streams and
// environment, and the user's config file, read once before the command
// does anything else ([loadUserConfig]).
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	user           *userConfig
}

// flags returns the flag set of the subcommand name, reporting to stderr.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	return fs
}

// parse parses a subcommand's flags wherever they stand on the line, as
// most command lines do (`agentls plan hi --json` is the instruction "hi"
// and --json), and returns the other arguments in their order; "--" ends
// the flags, and what follows is taken as it is. Help and bad flags are
// handled as [parseFlags] does: ok is false when the command must return
// code.
func (c *cli) parse(fs *flag.FlagSet, args []string) (rest []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
			return nil, code, false
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, 0, true
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), 0, true
		}
		rest, args = append(rest, left[0]), left[1:]
	}
}

// fail reports err of the subcommand name and returns exit code 1. The
// error may quote a file or a server (T22): its control characters are
// shown.
func (c *cli) fail(name string, err error) int {
	fmt.Fprintf(c.stderr, "agentls %s: %s\n", name, sandbox.VisibleText(err.Error()))
	return 1
}

// badUsage prints the usage of the subcommand name and returns exit
// code 2.
func (c *cli) badUsage(name string) int {
	fmt.Fprintln(c.stderr, "usage: "+synopses[name])
	return 2
}

// extOptions are the user's extensions, from the config file already
// read, and the project's for root. A project file that cannot be used
// is reported and none of the project's entries run.
func (c *cli) extOptions(root string, log *slog.Logger) *ext.Options {
	o := &ext.Options{Root: root, Trust: ext.OpenStore(trustPath(c.getenv)), Logger: log, User: c.user.Ext}
	project, err := ext.LoadProject(root)
	if err != nil {
		log.Warn("No hooks or MCP servers from the project", slog.String("err", err.Error()))
	}
	o.Project = project
	return o
}

// startExtensions starts the user's and the trusted project's hooks and
// MCP servers for root, as a headless run does (nobody is asked about the
// others); warnings go to w.
func (c *cli) startExtensions(ctx context.Context, root string, w io.Writer) *ext.Extensions {
	return ext.Start(ctx, c.extOptions(root, warnLogger(w, false)))
}

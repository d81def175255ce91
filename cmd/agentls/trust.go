package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/agentls/agentls/tools/ext"
)

// trustCmd is `agentls trust`: it lists the hooks and MCP servers the
// project declares and whether the user trusts them as they are now;
// --yes trusts them (and starts the project's servers once, to pin their
// tool definitions); --revoke forgets every decision about the project
// (A17).
func trustCmd(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rootFlag := fs.String("root", ".", "workspace root")
	yes := fs.Bool("yes", false, "trust every entry listed")
	revoke := fs.Bool("revoke", false, "forget the trust in this project")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || (*yes && *revoke) {
		fmt.Fprintln(stderr, "usage: agentls trust [--root DIR] [--yes|--revoke]")
		return 2
	}
	root, err := resolveRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "agentls trust: %v\n", err)
		return 1
	}
	project, err := ext.LoadProject(root)
	if err != nil {
		fmt.Fprintf(stderr, "agentls trust: %v\n", err)
		return 1
	}
	for _, w := range project.Warnings {
		fmt.Fprintf(stderr, "agentls trust: warning: %s\n", w)
	}
	store := ext.OpenStore(trustPath(getenv))
	if *revoke {
		if err := store.Revoke(root); err != nil {
			fmt.Fprintf(stderr, "agentls trust: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "forgot the trust in %s\n", root)
		return 0
	}
	entries := ext.ProjectEntries(project)
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "%s declares no hooks or MCP servers (%s, %s)\n", root, ext.ProjectHooksFile, ext.ProjectMCPFile)
		return 0
	}
	var untrusted []ext.Entry
	for _, e := range entries {
		state := "trusted"
		if _, ok := store.Trusted(root, e); !ok {
			state, untrusted = "NOT trusted", append(untrusted, e)
		}
		matcher := ""
		if e.Matcher != "" {
			matcher = " (matcher " + e.Matcher + ")"
		}
		fmt.Fprintf(stdout, "%s %s%s: %s — %s\n", e.Kind, e.Name, matcher, e.What, state)
	}
	if !*yes {
		if len(untrusted) > 0 {
			fmt.Fprintln(stdout, "These run on your machine, outside the sandbox. Review them, then run `agentls trust --yes` to trust them.")
		}
		return 0
	}
	if err := store.Trust(root, untrusted...); err != nil {
		fmt.Fprintf(stderr, "agentls trust: %v\n", err)
		return 1
	}
	// Start the project's servers once so their tool definitions are
	// pinned now, and show them.
	o := &ext.Options{Root: root, Project: project, Trust: store, Logger: warnLogger(stderr, false)}
	x := ext.Start(ctx, o)
	defer x.Close()
	for _, s := range x.Servers() {
		fmt.Fprintf(stdout, "mcp %s: %s, %d tools pinned %s\n", s.Name, s.State, len(s.Tools), s.Why)
		for _, t := range s.Tools {
			fmt.Fprintf(stdout, "  %s: %s\n", t.Name, t.Description)
		}
	}
	fmt.Fprintf(stdout, "trusted %d entries of %s; any change asks again\n", len(untrusted), root)
	return 0
}

package main

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools/ext"
)

// trustCmd is `agentls trust`: it lists the hooks and MCP servers the
// project declares, with the env values and workspace files their trust
// covers (A18), and whether the user trusts them as they are now (or
// trusted them before they changed);
// --yes trusts them (and starts the project's servers once, to pin their
// tool definitions); --revoke forgets every decision about the project
// (A17).
func (c *cli) trust(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	rootFlag := fs.String("root", ".", "workspace root")
	yes := fs.Bool("yes", false, "trust every entry listed")
	revoke := fs.Bool("revoke", false, "forget the trust in this project")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 0 || (*yes && *revoke) {
		return c.badUsage(name)
	}
	root, err := resolveRoot(*rootFlag)
	if err != nil {
		return c.fail(name, err)
	}
	project, err := ext.LoadProject(root)
	if err != nil {
		return c.fail(name, err)
	}
	for _, w := range project.Warnings {
		fmt.Fprintf(c.stderr, "agentls trust: warning: %s\n", sandbox.Visible(w))
	}
	store := ext.OpenStore(trustPath(c.getenv))
	if *revoke {
		if err := store.Revoke(root); err != nil {
			return c.fail(name, err)
		}
		fmt.Fprintf(c.stdout, "forgot the trust in %s\n", root)
		return 0
	}
	entries := ext.ProjectEntries(root, project)
	if len(entries) == 0 {
		fmt.Fprintf(c.stdout, "%s declares no hooks or MCP servers (%s, %s)\n", root, ext.ProjectHooksFile, ext.ProjectMCPFile)
		return 0
	}
	untrusted, unpinnable := c.listTrust(store, root, entries)
	if !*yes {
		if len(untrusted) > 0 {
			fmt.Fprintln(c.stdout, "These run on your machine, outside the sandbox; the trust covers their settings and the workspace files listed. Review them, then run `agentls trust --yes` to trust them.")
		}
		return 0
	}
	for _, e := range unpinnable {
		fmt.Fprintf(c.stderr, "agentls trust: %s %s cannot be trusted: %s\n", e.Kind, sandbox.Visible(e.Name), e.Unpinnable)
	}
	if err := store.Trust(root, untrusted...); err != nil {
		return c.fail(name, err)
	}
	c.pinServers(ctx, store, root, project)
	fmt.Fprintf(c.stdout, "trusted %d entries of %s; any change to them or to the files they run asks again\n", len(untrusted), root)
	if len(unpinnable) > 0 {
		return 1
	}
	return 0
}

// pinServers starts the project's servers once so their tool definitions
// are pinned now, and shows them.
func (c *cli) pinServers(ctx context.Context, store *ext.Store, root string, project *ext.Config) {
	v := sandbox.Visible
	x := ext.Start(ctx, &ext.Options{Root: root, Project: project, Trust: store, Logger: warnLogger(c.stderr, false)})
	defer x.Close()
	for _, s := range x.Servers() {
		fmt.Fprintf(c.stdout, "mcp %s: %s, %d tools pinned %s\n", v(s.Name), s.State, len(s.Tools), v(s.Why))
		for _, t := range s.Tools {
			fmt.Fprintf(c.stdout, "  %s: %s\n", v(t.Name), v(t.Description))
		}
	}
}

// listTrust prints each entry with what its trust covers and whether the
// user trusts it as it is now, and returns those the user does not trust
// and those that cannot be pinned. Names, commands, env values and paths
// come from the repository: shown with their control characters visible
// (T22).
func (c *cli) listTrust(store *ext.Store, root string, entries []ext.Entry) (untrusted, unpinnable []ext.Entry) {
	v := sandbox.Visible
	for _, e := range entries {
		_, st := store.Lookup(root, e)
		state := "trusted"
		switch {
		case e.Unpinnable != "":
			state = "NOT trusted (cannot be pinned: " + e.Unpinnable + ")"
			unpinnable = append(unpinnable, e)
		case st == ext.Changed:
			state = "NOT trusted (changed since you trusted it)"
		case st == ext.Unknown:
			state = "NOT trusted"
		}
		if st != ext.Trusted && e.Unpinnable == "" {
			untrusted = append(untrusted, e)
		}
		matcher := ""
		if e.Matcher != "" {
			matcher = " (matcher " + v(e.Matcher) + ")"
		}
		fmt.Fprintf(c.stdout, "%s %s%s: %s — %s\n", e.Kind, v(e.Name), matcher, v(e.What), state)
		for _, kv := range e.Env {
			fmt.Fprintf(c.stdout, "  env %s\n", v(kv))
		}
		for _, f := range e.Files {
			fmt.Fprintf(c.stdout, "  runs %s\n", v(f))
		}
	}
	return untrusted, unpinnable
}

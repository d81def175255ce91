package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// policy is `agentls policy [list] [--json]` and `agentls policy --revoke
// ID|all` (E21, issue 28): the "always" answers kept in the user's state
// directory, with their scope, tool, subject and when they were given;
// --revoke forgets one, or all (which also starts a damaged store afresh).
func (c *cli) policy(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	revoke := fs.String("revoke", "", "forget the allowance with this ID, or `all`")
	asJSON := fs.Bool("json", false, "print the allowances as JSON")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	list := len(rest) == 1 && rest[0] == "list"
	if len(rest) > 1 || len(rest) == 1 && !list || list && *revoke != "" || *asJSON && *revoke != "" {
		return c.badUsage(name)
	}
	store := tools.OpenAllowStore(tools.AllowStorePath(stateDir(c.getenv)))
	if store == nil {
		return c.fail(name, errors.New("no state directory to keep allowances in (set HOME or XDG_STATE_HOME)"))
	}
	if *revoke != "" {
		n, err := store.Revoke(*revoke)
		if err != nil {
			return c.fail(name, err)
		}
		fmt.Fprintf(c.stdout, "revoked %d allowance(s)\n", n)
		return 0
	}
	grants, err := store.Grants()
	if err != nil {
		// Fails closed: the server grants nothing from it either.
		c.fail(name, err)
		fmt.Fprintln(c.stderr, "agentls policy: nothing in it is honoured; `agentls policy --revoke all` starts it afresh")
		return 1
	}
	if *asJSON {
		grants = append([]tools.Grant{}, grants...) // [] rather than null
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(grants); err != nil {
			return c.fail(name, err)
		}
		return 0
	}
	c.listGrants(store.Path(), grants)
	return 0
}

// listGrants prints one line per allowance. Subjects come from the
// model's calls and workspaces from the disk: shown with their control
// characters visible (T22).
func (c *cli) listGrants(path string, grants []tools.Grant) {
	if len(grants) == 0 {
		fmt.Fprintf(c.stdout, "no allowances (%s)\n", path)
		return
	}
	v := sandbox.Visible
	for _, g := range grants {
		where := string(g.Scope)
		if g.Session != "" {
			where += " " + v(g.Session)
		}
		if g.Workspace != "" {
			where += " in " + v(g.Workspace)
		}
		fmt.Fprintf(c.stdout, "%s  %s  %s  %s  %s", v(g.ID), where, v(g.Tool), v(g.Subject), g.Granted.Local().Format(time.DateTime))
		if p := g.Problem(); p != "" {
			fmt.Fprintf(c.stdout, "  (ignored: %s)", p)
		}
		fmt.Fprintln(c.stdout)
	}
	fmt.Fprintf(c.stdout, "%d allowance(s) in %s; `agentls policy --revoke ID|all` forgets them\n", len(grants), path)
}

package agentrun

import (
	"errors"
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// ErrNoGateway is returned by [New] when the run's tools cannot be set up.
var ErrNoGateway = errors.New("the tools cannot be set up")

// gateway gives the run its gateway: the tools its mode offers, over the
// front-end's workspace, findings and (unless the mode is read-only) edit
// proposals with checkpoints, under its policy and the user's approvals,
// with the hooks of the connection's extensions and, when the mode offers
// them, their MCP tools. A mode that starts sub-agents also gets the agent
// tool, built from this run's options as its parent: they are complete
// but for the gateway itself, set right after, and sub-agents get a
// subset of it.
func (r *Run) gateway() error {
	o := r.o
	g := o.Gateway // a copy: the front-end's part
	g.Reads, g.SessionID, g.Logger, g.ReadOnly = tools.NewReadTracker(), r.SessionID, r.Log, o.Mode.ReadOnly()
	g.Allowed, g.Withheld = o.Mode.Offer(r.conditions())
	if !o.Mode.ReadOnly() {
		g.Edits, g.Sync = r.Checkpoint(), o.Edits.Flush
		g.Checkpoint = commandCheckpoint{r.Session} // what commands change is revertable (S9)
	}
	if o.Mode.SubAgents() && o.SubAgents {
		g.Tools = []*tools.Tool{agent.SubAgentTool(o.Agent, nil)}
	}
	r.extensionTools(&g)
	gw, err := tools.NewGateway(o.Registry, &g)
	if err != nil {
		r.Log.Error("No gateway", slog.String("err", err.Error()))
		return ErrNoGateway
	}
	o.Agent.Tools = gw
	o.Agent.NewRunner = func(allowed []string) agent.ToolRunner { return gw.Subset(allowed) }
	return nil
}

// extensionTools adds the hooks to a run's gateway options, protects what
// the extensions run, and, when its mode offers them, adds the MCP tools.
func (r *Run) extensionTools(g *tools.GatewayOptions) {
	if r.Ext == nil {
		return
	}
	g.Hooks = r.Ext.Hooks()
	g.Protected = tools.NamedPaths(r.o.Root, r.Ext.Runs())
	if !r.o.Mode.MCP() {
		return
	}
	for _, t := range r.Ext.Tools() {
		g.Tools = append(g.Tools, t)
		g.Allowed = append(g.Allowed, t.Name)
	}
}

// conditions are the facts of the run that decide which of its mode's
// tools can be used at all (issue 16): an allowed host, someone to answer
// questions, a SQLite file (looked for only when the mode could offer
// sql_query).
func (r *Run) conditions() agent.Conditions {
	p := r.o.Gateway.Policy
	c := agent.Conditions{Hosts: p.HTTP != nil && len(p.HTTP.Allow) > 0, Answers: r.o.Answers}
	c.SQLite = r.o.Mode.Offers("sql_query") && builtin.WorkspaceHasSQLite(r.o.Root)
	return c
}

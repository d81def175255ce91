package lspserver

import (
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// gateway gives the run its gateway: the tools its mode offers, over the
// run's workspace, findings and (unless the mode is read-only) edit
// proposals, under its policy and the user's approvals, with the hooks of
// the connection's extensions and, when the mode offers them, their MCP
// tools. A mode that starts sub-agents also gets the agent tool, built
// from this run's options as its parent: they are complete but for the
// gateway itself, set right after, and sub-agents get a subset of it.
func (r *run) gateway() error {
	s := r.s
	o := &tools.GatewayOptions{
		Root: s.root, Workspace: r.ws, Findings: r.sink, Reads: tools.NewReadTracker(), Exec: s.opts.Exec,
		Policy: r.policy, Approver: approver{s}, Allowances: s.allow, Audit: s.opts.Audit,
		SessionID: r.id, Logger: r.log,
		ReadOnly: r.mode.ReadOnly(),
	}
	o.Allowed, o.Withheld = r.mode.Offer(s.conditions(r))
	if !r.mode.ReadOnly() {
		o.Edits, o.Sync = r.edits(), r.prop.flush
	}
	if r.mode.SubAgents() && s.subAgents {
		o.Tools = []*tools.Tool{agent.SubAgentTool(r.opts, nil)}
	}
	r.extensionTools(o)
	if r.srun != nil && !r.mode.ReadOnly() {
		o.Checkpoint = commandCheckpoint{r.srun} // what commands change is revertable (S9)
	}
	gw, err := tools.NewGateway(s.reg, o)
	if err != nil {
		r.log.Error("No gateway", slog.String("err", err.Error()))
		return failf(ReasonInternal, "the tools cannot be set up")
	}
	r.opts.Tools = gw
	r.opts.NewRunner = func(allowed []string) agent.ToolRunner { return gw.Subset(allowed) }
	return nil
}

// extensionTools adds the hooks to a run's gateway options, protects what
// the extensions run, and, when its mode offers them, adds the MCP tools.
func (r *run) extensionTools(o *tools.GatewayOptions) {
	if r.ext == nil {
		return
	}
	o.Hooks = r.ext.Hooks()
	o.Protected = tools.NamedPaths(r.s.root, r.ext.Runs())
	if !r.mode.MCP() {
		return
	}
	for _, t := range r.ext.Tools() {
		o.Tools = append(o.Tools, t)
		o.Allowed = append(o.Allowed, t.Name)
	}
}

// conditions are the facts of r that decide which of its mode's tools can
// be used at all (issue 16): an allowed host, someone to answer questions,
// a SQLite file (looked for only when the mode could offer sql_query).
func (s *Server) conditions(r *run) agent.Conditions {
	c := agent.Conditions{Hosts: allowsHosts(r.policy), Answers: s.answersQuestions(r.policy)}
	c.SQLite = r.mode.Offers("sql_query") && builtin.WorkspaceHasSQLite(s.root)
	return c
}

// answersQuestions reports whether a question of this run can reach
// someone who answers it: not under the ci profile, and not for a client
// that declares itself unattended (headless --approve=never).
func (s *Server) answersQuestions(p *tools.Policy) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.Profile != tools.ProfileCI && !s.caps.unattended
}

// allowsHosts reports whether the policy lets http_fetch reach some host.
func allowsHosts(p *tools.Policy) bool { return p.HTTP != nil && len(p.HTTP.Allow) > 0 }

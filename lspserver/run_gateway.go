package lspserver

import (
	"log/slog"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
)

// equip gives the run its gateway: the tools its mode offers, over the
// run's workspace, findings and (unless the mode is read-only) edit
// proposals, under its policy and the user's approvals. A mode that starts
// sub-agents also gets the agent tool, built with this run's options as
// its parent, and sub-agents get a subset of this gateway.
func (s *Server) equip(r *run) error {
	o := &tools.GatewayOptions{
		Root: s.root, Workspace: r.ws, Findings: r.sink, Reads: tools.NewReadTracker(), Exec: s.opts.Exec,
		Policy: r.policy, Approver: approver{s}, Session: s.sess, Audit: s.opts.Audit,
		SessionID: r.id, Logger: r.log,
		Allowed: r.mode.Tools(allowsHosts(r.policy)), ReadOnly: r.mode.ReadOnly(),
	}
	if !r.mode.ReadOnly() {
		o.Edits, o.Sync = r.edits(), r.prop.flush
	}
	if r.mode.SubAgents() && s.subAgents {
		o.Tools = []*tools.Tool{agent.SubAgentTool(r.opts, nil)}
	}
	r.equipExtensions(o)
	gw, err := tools.NewGateway(s.reg, o)
	if err != nil {
		r.log.Error("No gateway", slog.String("err", err.Error()))
		return failf(ReasonInternal, "the tools cannot be set up")
	}
	r.opts.Tools = gw
	r.opts.NewRunner = func(allowed []string) agent.ToolRunner { return gw.Subset(allowed) }
	return nil
}

// allowsHosts reports whether the policy lets http_fetch reach some host.
func allowsHosts(p *tools.Policy) bool { return p.HTTP != nil && len(p.HTTP.Allow) > 0 }

package tools

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
)

// GatewayOptions is everything one run's gateway is built from: the
// workspace and what the tools report to, the policy, who answers its
// questions and where its decisions are recorded, and which tools the run
// offers. Nil fields mean the capability is absent, as in [Env].
type GatewayOptions struct {
	// Root is the absolute workspace root with symlinks resolved.
	Root      string
	Workspace Workspace
	Edits     EditProposer
	Findings  FindingSink
	// Sync gets approved edits onto the disk before a process reads it
	// (see [Env.Sync]).
	Sync func(ctx context.Context) []string
	// Reads tracks what the model has seen of each file (T17).
	Reads *ReadTracker
	// Exec runs run_command's processes in the sandbox; nil means no
	// command can run.
	Exec *exec.Runner
	// Policy decides allow / ask / deny and configures the tools (shell
	// rules, command limits, the HTTP allowlist); nil means the editor
	// defaults.
	Policy *Policy
	// Approver answers the policy's asks and human_confirm's questions.
	Approver Approver
	// Allowances remembers "always allow" answers across runs.
	Allowances *Allowances
	// Audit receives one record per decision; nil discards.
	Audit *AuditLog
	// Hooks run the user's PreToolUse and PostToolUse hooks around every
	// call; nil runs none.
	Hooks Hooks
	// Protected are workspace paths that hooks and MCP servers run
	// ([NamedPaths]): a command's change to one is held (S10).
	Protected []string
	// Checkpoint keeps what a command's merge changes, for revert (S9);
	// nil keeps nothing.
	Checkpoint Checkpoint
	SessionID  string
	Logger     *slog.Logger

	// Allowed are the tool names the run offers (what its mode says);
	// ReadOnly refuses every tool that is not a read (E4).
	Allowed  []string
	ReadOnly bool
	// Withheld are tools the run does not offer because they cannot be
	// used in it (issue 16: no SQLite file, nobody to answer, no allowed
	// host), each with why: a call to one is refused with that reason
	// ([CodeUnavailable], rule run.not_offered) and never runs.
	Withheld map[string]string
	// Timeout bounds the execution of one call; zero means 2 minutes. The
	// time the call waits for the user ([AwaitUser]) does not count.
	Timeout time.Duration
	// Env, when set, is the tools' environment exactly as given, instead
	// of one made of Root … Checkpoint above with the policy's limits
	// applied ([Policy.Apply]): for a caller that sets the limits itself,
	// as the tools' tests do.
	Env *Env
	// Tools are tools of this run only, offered next to the registry's
	// when Allowed names them (the sub-agent tool, built with its parent
	// run's options). One of them replaces a registry tool of its name.
	Tools []*Tool
}

// NewGateway returns the validation gateway of one run over reg and o.Tools:
// the one place where the tools' environment, the policy's tool settings,
// the approver and the audit log come together. serve, exec, vet and call
// all build their gateway here. It fails only on an invalid o.Tools entry.
func NewGateway(reg *Registry, o *GatewayOptions) (*Gateway, error) {
	if o == nil {
		o = &GatewayOptions{}
	}
	policy := o.Policy
	if policy == nil {
		policy = DefaultPolicy(ProfileEditor)
	}
	if len(o.Tools) > 0 {
		run := &Registry{tools: reg.entries()}
		for _, t := range o.Tools {
			delete(run.tools, t.Name)
			if err := run.Register(t); err != nil {
				return nil, err
			}
		}
		reg = run
	}
	env := o.Env
	if env == nil {
		env = &Env{Root: o.Root, Workspace: o.Workspace, Edits: o.Edits, Findings: o.Findings, Sync: o.Sync,
			Reads: o.Reads, Exec: o.Exec, Protected: o.Protected, Checkpoint: o.Checkpoint}
		policy.Apply(env)
	}
	return newGateway(reg, env, &gatewayConfig{
		Allowed: slices.Clone(o.Allowed), Withheld: maps.Clone(o.Withheld), ReadOnly: o.ReadOnly, Timeout: o.Timeout, Policy: policy,
		Approver: o.Approver, Allowances: o.Allowances, Audit: o.Audit, Hooks: o.Hooks, SessionID: o.SessionID, Logger: o.Logger,
	}), nil
}

// Subset returns a gateway with r's registry, environment, policy,
// approvals and audit that offers only those of names r offers: what a
// sub-agent of r's run gets.
func (r *Gateway) Subset(names []string) *Gateway {
	opts := r.opts
	opts.Allowed = nil
	for _, n := range names {
		if slices.Contains(r.opts.Allowed, n) {
			opts.Allowed = append(opts.Allowed, n)
		}
	}
	return newGateway(r.reg, r.env, &opts)
}

// entries returns a copy of the registry's table.
func (r *Registry) entries() map[string]*entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return maps.Clone(r.tools)
}

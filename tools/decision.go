package tools

import (
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/shell"
)

// Decision is an allow / ask / deny verdict: the sandbox's one decision
// type. Tool checks, policy rules, risk defaults, the audit log and
// `agentls vet` all use it.
type Decision = sandbox.Decision

// The decisions, from most to least permissive.
const (
	Allow = sandbox.Allow
	Ask   = sandbox.Ask
	Deny  = sandbox.Deny
)

// stricter reports whether a is stricter than b; unknown values rank as
// deny (fail closed).
func stricter(a, b Decision) bool { return a.Stricter(b) }

// Verdict is a decision on one call and what it is about. A tool's static
// policy step ([Tool.Check]) returns its own verdict; the gateway combines
// it with the policy into the verdict that decides the call, which is what
// [Gateway.Vet] returns and `agentls vet` prints (the fields with JSON
// names).
type Verdict struct {
	// Decision is final when Deny: no policy rule or approval can turn a
	// tool's deny into a run.
	Decision Decision `json:"decision"`
	Code     Code     `json:"code,omitempty"`   // the error code of a deny
	Reason   string   `json:"reason,omitempty"` // safe to show to the model
	Rule     string   `json:"rule,omitempty"`   // the rule that decided, e.g. "sql.read_only"
	// Subject is the normalized thing the call touches, which policy
	// patterns match: a workspace-relative path, a command, a URL, or
	// "database: query". It must not contain secrets.
	Subject string `json:"subject,omitempty"`
	Field   string `json:"-"` // the argument a deny is about, if one
	// Recovery tells the model how to recover from the tool's own deny;
	// "" takes the gateway's for the code.
	Recovery string `json:"-"`
	// Safe says the tool's own analysis established that the call is
	// harmless (a read-only command with safe arguments): a risk default
	// of ask is lifted to allow. A risk default of deny still applies.
	Safe bool `json:"-"`
	// Control says the call changes a control file (E15): one whose
	// content editors, shells or git run outside the sandbox (.vscode/**,
	// .envrc, .git/**, …). No rule or risk default lifts it to allow; the
	// user is asked one by one with [ControlWarning], never "always". The
	// file tools set it for their paths, run_command for redirections.
	Control bool `json:"control,omitempty"`
	// Preview describes the effect for the person approving it: a diff,
	// command and working directory, method and URL, SQL objects.
	Preview string `json:"-"`
	// Commands are the simple commands of a run_command line with the
	// analyser's decision on each; policy rules match them one by one
	// (T19, [Policy.Decide]). Nil for every other tool.
	Commands []shell.Command `json:"-"`
}

// Verdict returns the deny verdict of a check that refuses with e.
func (e *ToolError) Verdict() *Verdict {
	return &Verdict{Decision: Deny, Code: e.Code, Field: e.Field, Rule: e.Rule, Reason: e.Reason, Subject: e.Subject}
}

// Refusal returns the tool error of a deny verdict, with the recovery
// advice the model gets.
func (v *Verdict) Refusal(recovery string) *ToolError {
	return &ToolError{Code: v.Code, Field: v.Field, Reason: v.Reason, Recovery: recovery, Rule: v.Rule, Subject: v.Subject}
}

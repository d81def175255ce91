package agent

import (
	"fmt"
	"slices"

	"github.com/agentls/agentls/prompts"
)

// Mode is the kind of a run: plan, review or execute. One table below says,
// per mode, which tools it offers, how its system prompt briefs the model,
// and whether it is read-only (E4, E5, B7). Parse a mode once at the edge
// with [ParseMode] and pass the value.
//
// The zero Mode is [ModePlan]: a run nobody configured is read-only.
type Mode uint8

// The modes.
const (
	ModePlan    Mode = iota // investigate and answer with a plan; read-only
	ModeReview              // report findings on the code; read-only
	ModeExecute             // make the change, every edit proposed for approval
)

// modeSpec is one row of the mode table.
type modeSpec struct {
	name string
	// tools are offered to the model, in this order.
	tools []string
	// network adds networkTools when the policy allows some hosts.
	network bool
	// subAgents adds the agent tool (B7): only runs that may change things
	// delegate, and their sub-agents get the plan tools.
	subAgents bool
	// readOnly: the gateway refuses every tool that is not a read (E4) and
	// no edit is proposed.
	readOnly bool
	// findings: the run reports findings, published as diagnostics (E5).
	findings bool
	// mcp: the run offers the tools of the user's MCP servers (B6).
	mcp   bool
	brief prompts.Brief
	// instruction is the task when the user gives none; "" means the user
	// must give one.
	instruction string
}

// planTools are the tools of every mode: reads only.
var planTools = []string{"read_file", "list_dir", "search"}

// networkTools join a mode with network when the policy has an HTTP
// allowlist.
var networkTools = []string{"http_fetch"}

// modes is the mode table, indexed by Mode.
var modes = [...]modeSpec{
	ModePlan: {name: "plan", tools: planTools, readOnly: true, brief: prompts.BriefPlan},
	ModeReview: {name: "review", tools: slices.Concat(planTools, []string{"report_finding"}),
		readOnly: true, findings: true, brief: prompts.BriefReview,
		instruction: "Review this code for bugs, security problems and unclear error handling."},
	// Execute: the two tools that propose file changes, commands,
	// questions to the user, read-only SQL and arithmetic.
	ModeExecute: {name: "execute", tools: slices.Concat(planTools, []string{"edit_file", "write_file", "run_command",
		"human_confirm", "sql_query", "calculator"}), network: true, subAgents: true, mcp: true, brief: prompts.BriefExecute},
}

// Modes returns every mode, in table order.
func Modes() []Mode { return []Mode{ModePlan, ModeReview, ModeExecute} }

// ParseMode returns the mode named s: plan, review or execute.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if modes[m].name == s {
			return m, nil
		}
	}
	return ModePlan, fmt.Errorf("unknown mode %q: want plan, review or execute", s)
}

// spec is m's row; a Mode outside the table gets the plan row, the most
// restrictive one.
func (m Mode) spec() *modeSpec {
	if int(m) < len(modes) {
		return &modes[m]
	}
	return &modes[ModePlan]
}

// String returns the mode's name, as [ParseMode] reads it.
func (m Mode) String() string {
	if int(m) >= len(modes) {
		return fmt.Sprintf("Mode(%d)", m)
	}
	return m.spec().name
}

// Tools returns the names of the tools a run in m offers when every tool
// can be used (see [Mode.Offer]), a fresh slice each time: the mode's own
// tools, then http_fetch when network is set (the run's policy allows some
// hosts) and the mode may use it, then the agent tool ([SubAgentToolName])
// when the mode may start sub-agents.
func (m Mode) Tools(network bool) []string {
	s := m.spec()
	out := slices.Clone(s.tools)
	if network && s.network {
		out = append(out, networkTools...)
	}
	if s.subAgents {
		out = append(out, SubAgentToolName)
	}
	return out
}

// Conditions are the facts of one run that decide whether a tool of its
// mode can be used there at all (issue 16, context diet). A tool that
// cannot is not offered, so its description and schema are not resent
// with every request; the gateway answers a call to it with why.
type Conditions struct {
	// Hosts: the policy's HTTP allowlist names some host (http_fetch).
	Hosts bool
	// Answers: someone can answer a question in this run (human_confirm):
	// false for headless --approve=never, the ci profile, and a client
	// that declares it answers none.
	Answers bool
	// SQLite: the workspace holds a SQLite file (sql_query).
	SQLite bool
}

// needs says, for the tools that depend on the run, why one cannot be
// used under c ("" when it can). Tools not listed always can.
var needs = map[string]func(c Conditions) string{
	"http_fetch": func(c Conditions) string {
		return unless(c.Hosts, "the policy allows no host (its http.allow list is empty)")
	},
	"human_confirm": func(c Conditions) string {
		return unless(c.Answers, "nobody can answer questions in this run (--approve=never, the ci profile, or an unattended client)")
	},
	"sql_query": func(c Conditions) string {
		return unless(c.SQLite, "the workspace has no SQLite file (*.db, *.sqlite, *.sqlite3, *.db3 with a SQLite header)")
	},
}

func unless(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}

// Offer returns the tools a run in m offers under c, in the order of
// [Mode.Tools], and those of the mode it withholds because c says they
// cannot be used, each with why. The gateway refuses a withheld tool with
// that reason ([tools.GatewayOptions.Withheld]); it never runs.
func (m Mode) Offer(c Conditions) (offered []string, withheld map[string]string) {
	for _, name := range m.Tools(true) {
		if need, ok := needs[name]; ok {
			if why := need(c); why != "" {
				if withheld == nil {
					withheld = map[string]string{}
				}
				withheld[name] = why
				continue
			}
		}
		offered = append(offered, name)
	}
	return offered, withheld
}

// Offers reports whether a run in m can offer the tool name at all, under
// some conditions: whether checking a condition for it is worth the cost.
func (m Mode) Offers(name string) bool { return slices.Contains(m.Tools(true), name) }

// ReadOnly reports whether a run in m may only read: its gateway refuses
// every tool whose risk is not read or none, and it proposes no edits.
func (m Mode) ReadOnly() bool { return m.spec().readOnly }

// SubAgents reports whether a run in m offers the agent tool (B7).
func (m Mode) SubAgents() bool { return m.spec().subAgents }

// MCP reports whether a run in m offers the tools of the user's MCP
// servers (B6): only runs that may change things do, since what an MCP
// tool does is the server's claim.
func (m Mode) MCP() bool { return m.spec().mcp }

// Findings reports whether a run in m reports findings (E5).
func (m Mode) Findings() bool { return m.spec().findings }

// Brief is the mode paragraph of m's system prompt.
func (m Mode) Brief() prompts.Brief { return m.spec().brief }

// DefaultInstruction is the task of a run in m when the user gives none;
// "" means the user must give one.
func (m Mode) DefaultInstruction() string { return m.spec().instruction }

package agent_test

import (
	"slices"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// TestMode_E4_E5_B7_Table pins the mode table: each mode's tools with and
// without an HTTP allowlist, its read-only-ness, its brief and whether the
// user must give an instruction. Sub-agents only in execute (B7); the
// network tool only with an allowlist, and only where the mode may use it.
func TestMode_E4_E5_B7_Table(t *testing.T) {
	plan := []string{"read_file", "list_dir", "search"}
	review := append(slices.Clone(plan), "report_finding")
	execute := append(slices.Clone(plan), "edit_file", "write_file", "run_command", "human_confirm", "sql_query", "calculator")
	cases := []struct {
		name                    string
		mode                    agent.Mode
		tools, withHosts        []string
		readOnly, sub, findings bool
		brief                   prompts.Brief
		needsInstruction        bool
	}{
		{"plan", agent.ModePlan, plan, plan, true, false, false, prompts.BriefPlan, true},
		{"review", agent.ModeReview, review, review, true, false, true, prompts.BriefReview, false},
		{"execute", agent.ModeExecute, append(slices.Clone(execute), "agent"),
			append(slices.Clone(execute), "http_fetch", "agent"), false, true, false, prompts.BriefExecute, true},
	}
	if got := agent.Modes(); len(got) != len(cases) {
		t.Fatalf("Modes() = %v; the table below has %d rows", got, len(cases))
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.mode
			if agent.Modes()[i] != m || m.String() != tc.name {
				t.Errorf("Modes()[%d] = %v, String() = %q", i, agent.Modes()[i], m.String())
			}
			if parsed, err := agent.ParseMode(tc.name); err != nil || parsed != m {
				t.Errorf("ParseMode(%q) = %v, %v", tc.name, parsed, err)
			}
			if got := m.Tools(false); !slices.Equal(got, tc.tools) {
				t.Errorf("Tools(false) = %q\nwant          %q", got, tc.tools)
			}
			if got := m.Tools(true); !slices.Equal(got, tc.withHosts) {
				t.Errorf("Tools(true) = %q\nwant         %q", got, tc.withHosts)
			}
			if m.ReadOnly() != tc.readOnly || m.SubAgents() != tc.sub || m.Findings() != tc.findings || m.Brief() != tc.brief {
				t.Errorf("ReadOnly %v SubAgents %v Findings %v Brief %q", m.ReadOnly(), m.SubAgents(), m.Findings(), m.Brief())
			}
			if (m.DefaultInstruction() == "") != tc.needsInstruction {
				t.Errorf("DefaultInstruction() = %q", m.DefaultInstruction())
			}
		})
	}
}

// TestMode_E4_ToolsAreRealAndReadOnlyMeansReads checks the table against
// the registry: every tool a mode names exists (the built-ins plus the
// agent tool), and a read-only mode names only tools whose risk is read or
// none, so the gateway's read-only fallback never has to refuse one.
func TestMode_E4_ToolsAreRealAndReadOnlyMeansReads(t *testing.T) {
	reg := tools.NewRegistry()
	reg.MustRegister(builtin.All()...)
	reg.MustRegister(agent.SubAgentTool(nil, nil))
	for _, m := range agent.Modes() {
		names := m.Tools(true)
		offered := reg.Select(names)
		if len(offered) != len(names) {
			t.Errorf("%s: %d of %q are registered", m, len(offered), names)
		}
		for _, tool := range offered {
			read := tool.Risk == tools.RiskRead || tool.Risk == tools.RiskNone
			if m.ReadOnly() && (!read || tool.Name == agent.SubAgentToolName) {
				t.Errorf("read-only %s offers %s (risk %s)", m, tool.Name, tool.Risk)
			}
		}
		if !slices.Equal(names[:3], agent.ModePlan.Tools(false)) {
			t.Errorf("%s does not start with the plan tools: %q", m, names)
		}
	}
}

// TestMode_ToolsAreFresh: the table cannot be changed through what it
// returns.
func TestMode_ToolsAreFresh(t *testing.T) {
	got := agent.ModeReview.Tools(false)
	got[0] = "write_file"
	_ = append(got[:1], "run_command")
	if again := agent.ModeReview.Tools(false); again[0] != "read_file" || again[1] != "list_dir" {
		t.Errorf("the table changed: %q", again)
	}
	if plan := agent.ModePlan.Tools(false); plan[0] != "read_file" || len(plan) != 3 {
		t.Errorf("plan tools changed: %q", plan)
	}
}

// TestParseMode_Unknown: the edge refuses names outside the table, and
// the zero Mode is plan, the read-only one.
func TestParseMode_Unknown(t *testing.T) {
	for _, s := range []string{"", "exec", "Plan", "execute ", "fix"} {
		if _, err := agent.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) succeeded", s)
		}
	}
	var zero agent.Mode
	if zero != agent.ModePlan || !zero.ReadOnly() {
		t.Errorf("zero Mode = %v, read-only %v", zero, zero.ReadOnly())
	}
	if out := agent.Mode(9); !out.ReadOnly() || out.SubAgents() || out.String() != "Mode(9)" {
		t.Errorf("Mode(9): read-only %v, sub-agents %v, %q", out.ReadOnly(), out.SubAgents(), out)
	}
}

// TestMode_B6_MCPOnlyInExecute: MCP tools join execute runs only; plan and
// review, which are read-only, never offer them.
func TestMode_B6_MCPOnlyInExecute(t *testing.T) {
	for _, m := range agent.Modes() {
		if got, want := m.MCP(), m == agent.ModeExecute; got != want {
			t.Errorf("%s: MCP() = %v, want %v", m, got, want)
		}
		if m.MCP() && m.ReadOnly() {
			t.Errorf("%s offers MCP tools in a read-only run", m)
		}
	}
}

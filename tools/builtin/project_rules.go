package builtin

import (
	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/tools"
)

// narrowByProject weighs the project's shell rules (T20): the command is
// analysed a second time with them in place of the user's, and that
// verdict counts only where it is stricter. A project rule therefore
// never lifts a user's deny (the user's analysis stands) and a user's
// allow never hides a project's deny. Without project rules nothing is
// analysed twice.
func narrowByProject(env *tools.Env, command string, v shell.Verdict) shell.Verdict {
	if len(env.Limits.ProjectShellRules) == 0 {
		return v
	}
	sp := &shell.Policy{Root: env.Root, Extra: env.Limits.ProjectShellRules, Home: env.Home}
	if pv := sp.Analyze(command); pv.Decision.Stricter(v.Decision) {
		return pv
	}
	return v
}

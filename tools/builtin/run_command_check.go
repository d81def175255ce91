package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/tools"
)

// checkRunCommand is run_command's static policy step: the command as
// the shell analyser reads it (S5), narrowed by the project's rules (T20),
// with what it would run and where. It runs nothing.
func checkRunCommand(_ context.Context, env *tools.Env, a *runCommandArgs) (*tools.Verdict, error) {
	sp := &shell.Policy{Root: env.Root, Extra: env.Limits.ShellRules, Home: env.Home}
	v := narrowByProject(env, a.Command, sp.Analyze(a.Command))
	c := &tools.Verdict{Decision: v.Decision, Subject: strings.TrimSpace(a.Command), Rule: v.Rule, Reason: v.Reason,
		Commands: v.Simple, Control: len(v.ControlPaths) > 0}
	if v.Command != "" && v.Command != c.Subject {
		c.Reason = fmt.Sprintf("%s (in: %s)", v.Reason, cut(v.Command, 200))
	}
	switch c.Decision {
	case tools.Allow:
		c.Safe = true // the analyser found only read-only commands
	case tools.Deny:
		c.Code, c.Field = tools.CodeCommandDenied, "command"
	}
	c.Preview = fmt.Sprintf("$ %s\n(in the workspace, timeout %s, %s)", cut(c.Subject, 2000),
		commandTimeout(env, a.TimeoutMS), sandboxSummary(env))
	return c, nil
}

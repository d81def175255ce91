package tools

import "github.com/agentls/agentls/sandbox/shell"

// Rules for run_command match per simple command (T19): a rule such as
// run_command(go test *) allows the command it names, not what is chained,
// piped, substituted, wrapped or redirected around it, and not what the
// command's own flags make it run (go test -exec, git -c …).

// decideCommands is [Policy.Decide] for a verdict that lists the simple
// commands of a command line (c.Commands) and is not the tool's own deny.
//
// A deny or ask rule decides when it matches the whole line or any one
// command. An allow rule without a pattern (run_command, risk:execute)
// allows the whole line, as it always did. An allow rule with a pattern
// covers only the commands it matches, and a covered command is decided
// by what no rule can lift (its [shell.Command].Fixed: flags that run
// programs, paths outside the workspace, secrets, control files). Every
// other command, redirection and syntax entry is decided as if no rule
// had matched: the analyser's allow stands (when the risk default asks,
// or when a rule covered another command of the line), anything else is
// the stricter of the analyser's decision and the risk default. The line
// gets the strictest of its commands.
func (p *Policy) decideCommands(t *Tool, c *Verdict) (Decision, string) {
	var ask, blanket *Rule
	covered := make([]*Rule, len(c.Commands))
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Source == "project" {
			continue // weighed by decideProject: project rules only narrow (T20)
		}
		hit := r.Decision != Allow && r.matches(t, c.Subject)
		for k := range c.Commands {
			cmd := &c.Commands[k]
			if hit || cmd.Kind != shell.KindCommand || !r.matches(t, cmd.Text) {
				continue
			}
			if r.Decision != Allow {
				hit = true
			} else if covered[k] == nil {
				covered[k] = r
			}
		}
		switch {
		case r.Decision == Deny && hit:
			return Deny, "policy: " + r.Text
		case r.Decision == Ask && hit && ask == nil:
			ask = r
		case r.Decision == Allow && r.pattern == nil && r.matches(t, c.Subject) && blanket == nil:
			blanket = r
		}
	}
	switch {
	case ask != nil:
		return Ask, "policy: " + ask.Text
	case blanket != nil:
		return Allow, "policy: " + blanket.Text
	}
	def, ok := p.Risks[t.Risk]
	if !ok {
		def = Ask
	}
	defRule := "default: risk " + string(t.Risk)
	var first *Rule
	for _, r := range covered {
		if r != nil && first == nil {
			first = r
		}
	}
	d, rule := Allow, c.Rule
	if first != nil {
		rule = "policy: " + first.Text
	}
	worse := func(e Decision, why string) {
		if stricter(e, d) {
			d, rule = e, why
		}
	}
	for k := range c.Commands {
		cmd := &c.Commands[k]
		switch {
		case covered[k] != nil:
			worse(cmd.Fixed, cmd.FixedRule)
		case cmd.Decision == Allow && !stricter(def, Ask),
			cmd.Decision == Allow && first != nil && !runsProjectCode(cmd.Rule):
			// the analyser's allow: a read-only command, or (where the
			// profile runs commands at all) the project's own build
		case stricter(cmd.Decision, def):
			worse(cmd.Decision, cmd.Rule)
		default:
			worse(def, defRule)
		}
	}
	return d, rule
}

// runsProjectCode reports an analyser allow that runs the project's own
// code in the sandbox (a build, a test: S11) rather than reading: where
// the profile runs no command unless a rule allows it (CI), such a
// command is not a harmless tail of an allowed one.
func runsProjectCode(rule string) bool {
	return rule == "shell.go_build" || rule == "shell.project_build"
}

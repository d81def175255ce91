package shell

import "github.com/agentls/agentls/sandbox"

// The simple commands of a verdict (T19): each decision the analyser
// notes is also recorded on the command it is about, so that a policy rule
// naming one command decides for that command only, and everything
// chained, piped, substituted, wrapped or redirected around it keeps its
// own decision.

// Kind says what a [Command] of a verdict is.
type Kind string

// The kinds of [Command].
const (
	// KindCommand is a simple command, or one a wrapper runs (the argv
	// after bash -c, env, timeout, xargs, find -exec … is its own
	// command). Policy rules match it by its Text.
	KindCommand Kind = "command"
	// KindRedirect is one redirection of a command or compound
	// statement ("> /tmp/out"). No policy rule matches it.
	KindRedirect Kind = "redirect"
	// KindSyntax holds the decisions about the command line that belong
	// to no single command: parse errors, length and nesting limits,
	// function definitions, coprocesses. No policy rule matches it.
	KindSyntax Kind = "syntax"
)

// Command is one simple command (or redirection) of a command line, with
// the analyser's decision about it alone.
type Command struct {
	Kind Kind
	// Argv is the command's words after expansion, for KindCommand;
	// values known only at run time keep their shell spelling ($X, $(…)).
	Argv []string
	// Text is Argv joined for display and for matching policy rules (words
	// with blanks or shell characters single-quoted); the redirection
	// for KindRedirect.
	Text string
	// Decision, Rule and Reason are the strictest decision noted about
	// this command alone, not about the commands nested in it.
	Decision     sandbox.Decision
	Rule, Reason string
	// Fixed is the part of Decision that a policy rule naming the command
	// cannot lift: what the command's flags make it run (go test -exec,
	// git -c, sort --compress-program), paths outside the workspace,
	// secrets, control files, environment overrides, code known only at
	// run time. Allow when nothing of the kind was noted; always
	// Decision for kinds other than KindCommand. FixedRule names it.
	Fixed     sandbox.Decision
	FixedRule string
}

// maxParts bounds the commands recorded for one command line; decisions
// beyond it go to the syntax entry, which no rule can lift.
const maxParts = 256

// part is a [Command] being recorded.
type part struct {
	kind       Kind
	argv       []string
	text       string
	dec, fixed verdict
}

// liftableRules are the analyser rules that describe what the named
// command is (a build, a write in the workspace, network use, an
// interpreter…): a policy rule that names the command with its arguments
// is the user's answer to them. Every other rule is fixed, so a rule
// added later is fixed until it is listed here.
var liftableRules = map[string]bool{
	"shell.read_only": true, "shell.git_read": true, "shell.go_build": true, "shell.assignment": true,
	"shell.workspace_write": true, "shell.workspace_delete": true, "shell.network": true,
	"shell.package_manager": true, "shell.container": true, "shell.interpreter": true, "shell.build": true,
	"shell.editor": true, "shell.interactive": true, "shell.kill": true, "shell.dd": true,
	"shell.unknown_command": true, "shell.git_write": true, "shell.go_run": true, "shell.go_mod": true,
	"shell.go_other": true, "shell.run_script": true, "shell.path_command": true, "shell.read_outside": true,
	"shell.wrapper": true, "shell.user_rule": true, "shell.project_build": true,
}

// partMark is what closePart needs to restore the command before.
type partMark struct {
	prev     int
	captured bool
}

// capture collects, while a user's command rule decides instead of the
// table, the decisions that rule cannot lift: the fixed ones of the
// command itself and every decision about the commands nested in it.
type capture struct {
	v      verdict
	nested int
}

// openPart starts recording a command and makes it the current one; the
// caller restores the previous one with closePart.
func (a *analyzer) openPart(kind Kind, argv []field, text string) partMark {
	m := partMark{prev: a.cur}
	if a.capt != nil && a.probing == 0 {
		a.capt.nested++
		m.captured = true
		return m
	}
	if a.probing > 0 || a.quiet > 0 || len(a.parts) >= maxParts {
		a.cur = -1 // recorded in the syntax entry (or not at all while probing)
		return m
	}
	p := part{kind: kind, text: text}
	for _, f := range argv {
		p.argv = append(p.argv, show(f.s))
	}
	a.parts = append(a.parts, p)
	a.cur = len(a.parts)
	return m
}

func (a *analyzer) closePart(m partMark) {
	if m.captured {
		a.capt.nested--
	}
	a.cur = m.prev
}

// nameCurrent sets the words of the current command once they are known
// (a declaration's are only after its assignments were analysed).
func (a *analyzer) nameCurrent(argv []string, text string) {
	if a.cur > 0 {
		a.parts[a.cur-1].argv, a.parts[a.cur-1].text = argv, text
	}
}

// record notes a decision on the current command (or the syntax entry).
func (a *analyzer) record(v verdict, lift bool) {
	if a.probing > 0 || a.quiet > 0 {
		return
	}
	if c := a.capt; c != nil {
		if (!lift || c.nested > 0) && (!c.v.set || v.dec.Stricter(c.v.dec)) {
			c.v = v
		}
		return
	}
	p := &a.syntax
	if a.cur > 0 {
		p = &a.parts[a.cur-1]
	}
	if !p.dec.set || v.dec.Stricter(p.dec.dec) {
		p.dec = v
	}
	if lift && p.kind == KindCommand {
		return
	}
	if !p.fixed.set || v.dec.Stricter(p.fixed.dec) {
		p.fixed = v
	}
}

// commands returns the recorded commands, the syntax entry last when it
// holds a decision.
func (a *analyzer) commands() []Command {
	out := make([]Command, 0, len(a.parts)+1)
	conv := func(p *part) Command {
		c := Command{Kind: p.kind, Argv: p.argv, Text: p.text, Decision: sandbox.Allow, Fixed: sandbox.Allow}
		if p.dec.set {
			c.Decision, c.Rule, c.Reason = p.dec.dec, p.dec.rule, p.dec.reason
		}
		if p.fixed.set {
			c.Fixed, c.FixedRule = p.fixed.dec, p.fixed.rule
		}
		return c
	}
	for i := range a.parts {
		out = append(out, conv(&a.parts[i]))
	}
	if a.syntax.dec.set {
		a.syntax.kind = KindSyntax
		out = append(out, conv(&a.syntax))
	}
	return out
}

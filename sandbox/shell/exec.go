package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// call is one simple command being decided.
type call struct {
	name string  // the table name: argv[0] without its directory
	argv []field // argv[0] is the command word
	io   ioCtx
	disp string // argv for messages
	part bool   // the simple command is recorded already (see commands.go)
}

func (c *call) args() []field { return c.argv[1:] }

// sub is the call of argv (a wrapped command) with the same stdin.
func (c *call) sub(argv []field) *call {
	return &call{argv: argv, io: c.io, disp: display(argv)}
}

// call analyses a simple command: its assignments, substitutions,
// redirections and then the command itself.
func (a *analyzer) call(c *syntax.CallExpr, redirs []*syntax.Redirect, io ioCtx) {
	var argv []field
	for _, w := range c.Args {
		argv = a.wordFields(w, argv)
	}
	disp := display(argv)
	defer a.closePart(a.openPart(KindCommand, argv, a.assignText(c.Assigns, disp)))
	prefix := len(c.Args) > 0
	env := a.envPrefix
	defer func() { a.envPrefix = env }()
	for _, as := range c.Assigns {
		if kv := a.assign(as, prefix); prefix && kv != "" {
			a.envPrefix = append(slices.Clip(a.envPrefix), kv)
		}
	}
	a.count(disp)
	if len(c.Args) > 0 && !isStaticWord(c.Args[0]) {
		a.note(sandbox.Ask, "shell.dynamic_command", disp, "the command name is computed at run time")
	}
	a.secretVar = false
	for i, w := range c.Args {
		a.substs(w, i > 0, disp)
	}
	secretVar := a.secretVar
	if len(c.Args) == 0 {
		disp = a.assignText(c.Assigns, "")
	}
	if disp != "" {
		a.cmds = append(a.cmds, disp)
	}
	net := false
	if len(argv) > 0 {
		if sp := lookupSpec(path.Base(argv[0].s)); sp != nil {
			net = sp.net
		}
	}
	io = a.redirects(redirs, disp, net, io)
	if text, ok := a.staticOutput(argv, io); ok {
		for _, w := range a.writes {
			a.recordScript(w, text)
		}
	}
	var writes []field
	if len(a.writes) > 0 {
		writes = slices.Clone(a.writes)
	}
	flow := a.secretFlow
	switch {
	case len(argv) > 0:
		a.exec(&call{argv: argv, io: io, disp: disp, part: true})
		if a.secretFlow && !flow || io.secretIn {
			for _, w := range writes {
				a.taint(w)
			}
		}
	case prefix:
		a.note(sandbox.Ask, "shell.dynamic_command", disp, "the command expands to nothing known")
	default:
		a.note(sandbox.Allow, "shell.assignment", disp, "sets shell variables")
	}
	if secretVar {
		a.secretFlow = true // what it prints may reach a later pipeline stage
	}
}

// assignText is a simple command's assignments followed by disp, its
// argv, as the command is shown and matched by policy rules.
func (a *analyzer) assignText(as []*syntax.Assign, disp string) string {
	if len(as) == 0 {
		return disp
	}
	var b strings.Builder
	for _, x := range as {
		if x.Name != nil {
			b.WriteString(x.Name.Value + "=" + show(a.wordString(x.Value)) + " ")
		}
	}
	b.WriteString(disp)
	return strings.TrimSpace(b.String())
}

// staticOutput is what echo, or cat fed a here-document, prints when it
// is known, so that a script written with it can be analysed when run.
func (a *analyzer) staticOutput(argv []field, io ioCtx) (string, bool) {
	if len(argv) == 0 || len(a.writes) == 0 {
		return "", false
	}
	switch argv[0].s {
	case "echo":
		args := argv[1:]
		for len(args) > 0 && (args[0].s == "-n" || args[0].s == "-e" || args[0].s == "-E") {
			args = args[1:]
		}
		return joinFields(args) + "\n", true
	case "cat":
		return io.feed, io.hasFeed && len(argv) == 1
	}
	return "", false
}

// count counts a simple command against MaxCommands, except while a loop
// body or a candidate is analysed again.
func (a *analyzer) count(disp string) {
	if a.recount > 0 {
		if a.budget--; a.budget <= 0 {
			a.note(sandbox.Deny, "shell.too_complex", disp, "the command needs too much work to analyse")
		}
		return
	}
	if a.ncmds++; a.ncmds == a.maxCmds+1 {
		a.note(sandbox.Deny, "shell.too_many_commands", disp, "more simple commands than the policy allows")
	}
}

// simpleWord reports a word of literals and plain quotes only, which
// holds no expansion or substitution to look into.
func simpleWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// isStaticWord reports a word made only of literals and quotes.
func isStaticWord(w *syntax.Word) bool {
	if simpleWord(w) {
		return true
	}
	static := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			static = false
		}
		return static
	})
	return static
}

// exec resolves the command name and decides about the command.
func (a *analyzer) exec(c *call) {
	if len(c.argv) == 0 {
		return
	}
	if !c.part { // a command a wrapper runs is a command of its own
		defer a.closePart(a.openPart(KindCommand, c.argv, c.disp))
	}
	w := c.argv[0]
	name := w.s
	switch {
	case isDynamic(name):
		if fromSubst(name) {
			a.note(sandbox.Ask, "shell.dynamic_command", c.disp, "the command name comes from a command substitution")
		} else {
			a.note(sandbox.Ask, "shell.dynamic_command", c.disp, "the command name is computed at run time")
		}
		a.candidates(c, dynamicCandidates)
		return
	case w.glob && name != "[":
		a.note(sandbox.Ask, "shell.glob_command", c.disp, "the command name is a glob pattern")
		var names []string
		pat := path.Base(name)
		for _, n := range tableNames() {
			if ok, _ := path.Match(pat, n); ok {
				names = append(names, n)
			}
		}
		if len(names) > 4 { // a broad pattern: only rules that depend on the arguments
			names = slices.DeleteFunc(names, func(n string) bool { return table()[n].check == nil })
		}
		a.candidates(c, names)
		return
	case strings.HasPrefix(name, mHome):
		a.note(sandbox.Ask, "shell.path_command", c.disp, "runs a program from a home directory")
		return
	case strings.Contains(name, "/"):
		dir, base := path.Split(name)
		if !systemBinDir(path.Clean(dir)) {
			a.note(sandbox.Ask, "shell.path_command", c.disp, "runs a program by path, not a known command")
			a.access(w, accExec, c.disp)
			a.candidates(c, []string{base})
			return
		}
		name = base
	}
	if !plainName(name) {
		a.note(sandbox.Ask, "shell.lookalike_command", c.disp, "the command name has unusual or lookalike characters")
		return
	}
	if a.st.funcs[name] {
		a.note(sandbox.Ask, "shell.function_call", c.disp, "calls a shell function defined in the command")
		return
	}
	c.name = name
	if a.extra(c) {
		return
	}
	a.dispatch(c)
}

// dispatch consults the table for c.name.
func (a *analyzer) dispatch(c *call) {
	spec := lookupSpec(c.name)
	if spec == nil {
		a.note(sandbox.Ask, "shell.unknown_command", c.disp, "not a command the policy knows")
		return
	}
	if spec.net && (a.secretFlow || c.io.secretIn) {
		a.note(sandbox.Deny, "shell.exfiltration", c.disp, "sends secret data over the network")
	}
	if spec.net && a.repoOnStdin(c) && sendsStdin(c) {
		a.note(sandbox.Deny, "shell.exfiltration", c.disp, "pipes workspace content to the network")
	}
	if spec.check != nil {
		v := a.probe(func() { spec.check(a, c, spec) })
		if v.set { // each command has its own decisions recorded already
			a.quiet++
			a.note(v.dec, v.rule, v.cmd, v.reason)
			a.quiet--
			return
		}
	}
	a.note(spec.dec, spec.rule, c.disp, spec.reason)
}

// candidates decides as if the command were each of names, and denies
// when one of them would be denied: a computed name that may be rm is
// treated as rm.
func (a *analyzer) candidates(c *call, names []string) {
	saved, ncmds, flow, echoed, ok := a.st, len(a.cmds), a.secretFlow, a.echoed, a.echoedOK
	a.recount++
	defer func() { a.recount-- }()
	for _, n := range names {
		if a.budget <= 0 {
			a.note(sandbox.Deny, "shell.too_complex", c.disp, "the command needs too much work to analyse")
			break
		}
		if lookupSpec(n) == nil {
			continue
		}
		a.budget--
		cc := *c
		cc.name = n
		a.probing++
		v := a.probe(func() { a.dispatch(&cc) })
		a.probing--
		a.st, a.secretFlow, a.echoed, a.echoedOK = saved, flow, echoed, ok
		if v.dec == sandbox.Deny {
			a.note(sandbox.Deny, v.rule, c.disp, v.reason+" (the command may be "+n+")")
		}
	}
	a.cmds = a.cmds[:ncmds]
}

// dynamicCandidates are the commands a computed name is checked against.
var dynamicCandidates = strings.Fields(`rm rmdir shred unlink chmod chown chgrp dd tee cp mv ln
	touch truncate sed find sh bash env xargs timeout nice nohup command exec git curl wget kill`)

// extra applies the first matching user rule; a built-in deny stands.
func (a *analyzer) extra(c *call) bool {
	for _, r := range a.pol.Extra {
		if r.Name != c.name || !argsMatch(r.Args, c.args()) {
			continue
		}
		a.recount++
		saved, capt := a.capt, &capture{} // the user's rule decides instead of the table, but
		a.capt = capt                     // not for what the command's flags run or wraps
		builtin := a.probe(func() { a.dispatch(c) })
		a.capt = saved
		a.recount--
		if builtin.dec == sandbox.Deny {
			a.note(builtin.dec, builtin.rule, builtin.cmd, builtin.reason)
			return true
		}
		rule, reason := r.Rule, r.Reason
		if rule == "" {
			rule = "shell.user_rule"
		}
		if reason == "" {
			reason = "a rule in the policy file"
		}
		dec := ruleDecision(r.Decision)
		a.noteLift(dec, rule, c.disp, reason, true)
		if v := capt.v; v.set && v.dec.Stricter(dec) {
			a.noteLift(v.dec, v.rule, v.cmd, v.reason, false)
		}
		return true
	}
	return false
}

func argsMatch(want []string, got []field) bool {
	if len(want) > len(got) {
		return false
	}
	for i, w := range want {
		if w != "*" && (w != got[i].s || isDynamic(got[i].s)) {
			return false
		}
	}
	return true
}

// reparse analyses src, code that c hands to a shell, with c's
// working directory; the decision is at least min.
func (a *analyzer) reparse(src string, c *call, min sandbox.Decision, rule, reason string) {
	if rule != "" {
		a.note(min, rule, c.disp, reason)
	}
	switch {
	case fromSubst(src):
		a.note(sandbox.Deny, "shell.exec_substitution", c.disp, "runs the output of a command substitution as code")
		return
	case isDynamic(src):
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "runs code that is only known at run time")
		return
	}
	saved := a.st
	a.script(strings.ReplaceAll(src, mHome, ""), c)
	a.st = saved
}

func systemBinDir(dir string) bool {
	switch dir {
	case "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin":
		return true
	}
	return false
}

// plainName reports a command name made of the characters real command
// names use, so that lookalikes (homoglyphs, zero-width characters) ask.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isASCIILetter(c) || '0' <= c && c <= '9' || strings.IndexByte("._+-:[", c) >= 0) {
			return false
		}
	}
	return true
}

package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// redirects checks the targets of a statement's redirections as paths and
// returns the command's stdin as they leave it. who is the command they
// belong to, for messages; net says it is a network tool, whose output
// files are remembered as downloads.
func (a *analyzer) redirects(rs []*syntax.Redirect, who string, net bool, io ioCtx) ioCtx {
	a.writes = a.writes[:0]
	for _, r := range rs {
		target := field{s: a.wordString(r.Word)}
		if r.Word != nil && r.Op != syntax.WordHdoc && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
			if fs := a.wordFields(r.Word, nil); len(fs) == 1 {
				target = fs[0] // as bash expands it, globs included
			}
		}
		disp := strings.TrimSpace(who + " " + r.Op.String() + " " + show(target.s))
		mark := a.openPart(KindRedirect, nil, strings.TrimSpace(r.Op.String()+" "+show(target.s)))
		if r.Word != nil {
			a.substs(r.Word, true, disp)
		}
		if r.Hdoc != nil {
			a.substs(r.Hdoc, false, disp)
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			io.feed, io.hasFeed = a.docText(r), true
			io.substIn = io.substIn || fromSubst(io.feed)
		case syntax.WordHdoc:
			io.feed, io.hasFeed = target.s+"\n", true
			io.substIn = io.substIn || fromSubst(target.s)
		case syntax.RdrIn:
			a.access(target, accRead, disp)
			io.stdinFile, io.hasFile = target, true
			io.substIn = io.substIn || fromSubst(target.s)
			io.secretIn = io.secretIn || a.anySecret(target)
		case syntax.DplIn, syntax.DplOut:
			if t := show(target.s); t != "-" && strings.Trim(t, "0123456789") != "" {
				if r.Op == syntax.DplOut {
					a.access(target, accWrite, disp)
				} else {
					a.note(sandbox.Ask, "shell.redirect", disp, "an unusual redirection")
				}
			}
		case syntax.RdrInOut:
			a.access(target, accRead, disp)
			a.access(target, accWrite, disp)
		default: // >, >>, >|, &>, &>>
			a.access(target, accWrite, disp)
			a.writes = append(a.writes, target)
			if net {
				a.recordDownload(target)
			}
		}
		a.closePart(mark)
	}
	return io
}

// docText is the text a here-document feeds: literal when its delimiter is
// quoted, expanded like a double-quoted string otherwise.
func (a *analyzer) docText(r *syntax.Redirect) string {
	if r.Hdoc == nil {
		return ""
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch p := p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				quoted = true
			case *syntax.Lit:
				quoted = quoted || strings.Contains(p.Value, `\`)
			}
		}
	}
	var sb strings.Builder
	for _, p := range r.Hdoc.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			if quoted {
				sb.WriteString(l.Value)
			} else {
				sb.WriteString(unescapeDQ(l.Value))
			}
			continue
		}
		sb.WriteString(a.quotedPart(p))
	}
	return sb.String()
}

func (a *analyzer) anySecret(f field) bool {
	for _, cwd := range a.st.cwd {
		if a.secretAt(a.classify(f, cwd)) {
			return true
		}
	}
	return false
}

// envKind classifies variables whose value changes what commands do.
type envKind uint8

const (
	envPlain  envKind = iota
	envAsk            // changes lookup or behaviour: ask
	envDeny           // loads code into every process: deny
	envCode           // the value is a command line: analyse it, at least ask
	envGit            // git configuration injection
	envPrompt         // a prompt string: substitutions in it run when it is shown
)

var sensitiveEnv = map[string]envKind{
	"LD_PRELOAD": envDeny, "LD_AUDIT": envDeny, "BASH_ENV": envDeny, "ENV": envDeny,
	"DYLD_INSERT_LIBRARIES": envDeny, "LD_LIBRARY_PATH": envAsk, "PATH": envAsk, "IFS": envAsk,
	"HOME": envAsk, "CDPATH": envAsk, "SHELLOPTS": envAsk, "BASHOPTS": envAsk, "GLOBIGNORE": envAsk,
	"HISTFILE": envAsk, "GOFLAGS": envAsk, "GOENV": envAsk, "GOTOOLCHAIN": envAsk, "GOPROXY": envAsk,
	"CC": envAsk, "CXX": envAsk, "LD": envAsk, "PYTHONPATH": envAsk, "PYTHONSTARTUP": envAsk,
	"PYTHONHOME": envAsk, "NODE_OPTIONS": envAsk, "NODE_PATH": envAsk, "PERL5OPT": envAsk,
	"PERL5LIB": envAsk, "PERLLIB": envAsk, "RUBYOPT": envAsk, "RUBYLIB": envAsk,
	"JAVA_TOOL_OPTIONS": envAsk, "_JAVA_OPTIONS": envAsk, "PROMPT_COMMAND": envCode,
	"PS0": envPrompt, "PS1": envPrompt, "PS2": envPrompt, "PS4": envPrompt, "EDITOR": envCode, "VISUAL": envCode,
	"PAGER": envCode, "MANPAGER": envCode, "LESSOPEN": envCode, "LESSCLOSE": envCode,
	"SSH_ASKPASS": envCode, "SUDO_ASKPASS": envCode, "GIT_SSH_COMMAND": envCode,
	"GIT_EXTERNAL_DIFF": envCode, "GIT_PAGER": envCode, "GIT_EDITOR": envCode,
	"GIT_SEQUENCE_EDITOR": envCode, "GIT_ASKPASS": envCode, "GIT_SSH": envCode,
	"GIT_PROXY_COMMAND": envCode, "GIT_CONFIG_PARAMETERS": envGit, "GIT_CONFIG_COUNT": envGit,
	"GIT_CONFIG_GLOBAL": envGit, "GIT_CONFIG_SYSTEM": envGit, "GIT_TEMPLATE_DIR": envGit,
}

// assign checks an assignment, as a statement of its own or as a prefix of
// a command (then prefix is true), and records a plain variable's value.
// It returns the assignment as NAME=value.
func (a *analyzer) assign(as *syntax.Assign, prefix bool) string {
	if as.Name == nil {
		return ""
	}
	name := as.Name.Value
	if as.Index != nil { // a[i]=v: the subscript is code (and arithmetic, T21)
		a.substs(as.Index, false, name)
		a.arith(as.Index, name)
	}
	if as.Value != nil {
		a.substs(as.Value, false, name)
	}
	if as.Array != nil {
		a.substs(as.Array, false, name)
	}
	a.assignEval(as)
	val := a.wordString(as.Value)
	switch {
	case as.Array != nil || as.Index != nil || as.Append:
		val = mUnknown + "$" + name
	case numericWord(as.Value): // n=$(wc -l < f): safe in arithmetic (T21)
		val = mArith
	}
	a.checkEnv(name, val, prefix)
	if !prefix {
		a.setVar(name, val)
	}
	return name + "=" + val
}

// checkEnv decides about setting variable name to val.
func (a *analyzer) checkEnv(name, val string, prefix bool) {
	disp := name + "=" + show(val)
	kind, ok := sensitiveEnv[name]
	switch {
	case ok:
	case strings.HasPrefix(name, "GIT_CONFIG_"):
		kind = envGit
	case strings.HasPrefix(name, "GIT_"), strings.HasPrefix(name, "DYLD_"), strings.HasPrefix(name, "LD_"),
		toolchainEnv(name), programEnv(name), compilerFlagsEnv(name) && !safeCompilerFlags(val):
		kind = envAsk
	default:
		return
	}
	switch kind {
	case envDeny:
		a.note(sandbox.Deny, "shell.env_injection", disp, "preloads code into every program that runs")
	case envAsk:
		if (name == "PYTHONPATH" || name == "NODE_PATH") && a.insideList(val) {
			return // the workspace's own modules
		}
		a.note(sandbox.Ask, "shell.env_override", disp, "changes how commands are found or behave")
	case envCode:
		a.note(sandbox.Ask, "shell.env_command", disp, "the variable holds a command that programs run")
		if name == "LESSOPEN" || name == "LESSCLOSE" { // "|cmd %s", "||cmd %s", "|-cmd %s"
			val = strings.TrimLeft(val, "|-")
		}
		a.reparse(val, &call{disp: disp}, sandbox.Ask, "shell.env_command", "the variable holds a command that programs run")
	case envPrompt:
		if strings.Contains(val, "$(") || strings.Contains(val, "`") || isDynamic(val) {
			a.note(sandbox.Ask, "shell.env_command", disp, "the prompt string runs a command substitution when shown")
		}
	case envGit:
		l := strings.ToLower(val)
		if strings.Contains(l, "hookspath") || strings.Contains(l, "fsmonitor") || strings.Contains(l, "hooks") {
			a.note(sandbox.Deny, "shell.git_config_exec", disp, "injects git configuration that runs hooks or programs")
		}
		a.note(sandbox.Ask, "shell.env_override", disp, "injects git configuration")
	}
	_ = prefix
}

// decl handles declare, export, local, readonly, typeset and nameref.
func (a *analyzer) decl(c *syntax.DeclClause) {
	variant := c.Variant.Value
	defer a.closePart(a.openPart(KindCommand, nil, variant))
	parts := []string{variant}
	named, nameref, integer := false, variant == "nameref", false
	for _, as := range c.Args {
		if as.Name == nil {
			if as.Value != nil {
				a.substs(as.Value, false, variant)
			}
			v := a.wordString(as.Value)
			parts = append(parts, show(v))
			switch {
			case isDynamic(v):
				a.note(sandbox.Ask, "shell.dynamic_assignment", variant+" "+show(v), "assigns a variable whose name is computed at run time")
			case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
				nameref = nameref || strings.Contains(v, "n")
				integer = integer || strings.HasPrefix(v, "-") && strings.Contains(v, "i")
			default:
				named = true
				name, val, hasVal := strings.Cut(v, "=")
				a.nameArg(name, variant+" "+show(v)) // declare 'a[i]=1' evaluates i (T21)
				a.declString(name, val, hasVal, integer, variant+" "+show(v))
			}
			continue
		}
		named = true
		parts = append(parts, as.Name.Value+"="+show(a.wordString(as.Value)))
		if val := a.wordString(as.Value); integer && as.Value != nil && val != mArith && !a.arithText(val, 0) {
			a.evalAgain(variant+" "+as.Name.Value, "the value of an integer variable") // declare -i x=… (T21)
		}
		if _, set := a.st.vars[as.Name.Value]; !as.Naked || as.Index != nil || !set { // declare x keeps x's value
			a.assign(as, false)
		}
		if integer {
			a.markInt(as.Name.Value)
		}
	}
	disp := strings.Join(parts, " ")
	a.nameCurrent(parts, disp)
	a.cmds = append(a.cmds, disp)
	a.count(disp)
	switch {
	case nameref:
		a.note(sandbox.Ask, "shell.nameref", disp, "a name reference can assign any variable")
	case !named && (variant == "export" || variant == "declare" || variant == "typeset" || variant == "readonly"):
		a.note(sandbox.Ask, "shell.env_dump", disp, "prints variables, which may hold secrets")
		a.secretFlow = true
	default:
		a.note(sandbox.Allow, "shell.assignment", disp, "sets shell variables")
	}
}

// declString handles a declaration given as one string (declare "x=v"):
// the value of an integer variable, and the subscripts of an array value,
// are evaluated (T21); the variable is recorded and checked like an
// assignment.
func (a *analyzer) declString(name, val string, hasVal, integer bool, who string) {
	if hasVal && ((integer || a.intVar(name)) && !a.arithText(val, 0) ||
		strings.HasPrefix(val, "(") && strings.Contains(val, "[")) {
		a.evalAgain(who, "the value of an integer variable or array")
	}
	if integer {
		a.markInt(name)
	}
	switch _, sensitive := sensitiveEnv[name]; {
	case !validName(name):
	case hasVal:
		a.checkEnv(name, val, false)
		a.setVar(name, val)
	case sensitive || strings.HasPrefix(name, "GIT_"):
		a.note(sandbox.Ask, "shell.env_override", who, "exports or changes a sensitive variable")
	}
}

// secretVarName reports variable names that usually hold secrets.
func secretVarName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "COOKIE", "SESSION", "API_KEY", "APIKEY", "ACCESS_KEY", "_AUTH", "AUTH_"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return strings.HasSuffix(u, "_KEY") || strings.HasSuffix(u, "_PASS") || strings.HasSuffix(u, "_PW") || u == "SSH_AUTH_SOCK"
}

package shell

import (
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// Default limits of a [Policy].
const (
	DefaultMaxBytes    = 10000
	DefaultMaxCommands = 50
)

// maxShellDepth bounds how deeply re-parsed code (bash -c, eval, here-docs
// into a shell, ProxyCommand, …) is analysed; deeper nesting is denied.
const maxShellDepth = 4

// Policy decides, without running anything, whether a shell command
// given to run_command may run (requirement S5). It parses the command as
// bash with mvdan.cc/sh, examines every simple command, redirection,
// assignment and substitution, looks through wrappers such as bash -c, env,
// xargs and find -exec, and consults a table of commands with argument
// rules. The zero value (with Root set) is ready to use and safe for
// concurrent use.
type Policy struct {
	// Root is the workspace root: an absolute directory path without
	// symlinks. Paths in the command are resolved against it as
	// [sandbox.ResolvePath] does.
	Root string
	// Extra holds user rules from the policy file. A matching rule decides
	// for its command instead of the built-in table, except that it can
	// never lower a built-in deny.
	Extra []CommandRule
	// MaxBytes is the longest command accepted (default 10000 bytes).
	MaxBytes int
	// MaxCommands is the largest number of simple commands accepted,
	// counting those in re-parsed code (default 50).
	MaxCommands int
	// Home is the user's home directory, if known, so that absolute paths
	// into it are treated like ~/… (startup files, keys). ~ and $HOME are
	// always treated as a home outside the workspace, and so are /root
	// and /home/*; the environment is never read.
	Home string
}

// Verdict is the decision about one command line.
type Verdict struct {
	Decision sandbox.Decision
	Rule     string   // the rule that decided, e.g. "shell.pipe_to_interpreter"
	Command  string   // the sub-command that decided, e.g. "rm -rf ~"
	Reason   string   // why, safe to show to the model and the user
	Commands []string // every simple command found, its resolved argv joined
	// Simple lists every simple command, wrapped command and redirection
	// with its own decision, and last the decisions that belong to no
	// command (KindSyntax): a policy combines rules per command (T19).
	// Decision is always the strictest of their decisions.
	Simple []Command
	// ControlPaths are the editor, shell and VCS control files of E15
	// (.vscode/**, .git/**, .envrc, …; workspace-relative, resolved) that
	// the command writes, deletes or changes as far as the analysis sees:
	// such a command is asked one by one with a warning that the file
	// runs code outside the sandbox, and no rule or "always" answer may
	// approve it in advance. Writes to agentls' own .agentls/** are
	// denied instead (rule shell.protected_path).
	ControlPaths []string
}

// CommandRule is a declarative rule for one command, as a user writes it
// in the policy file to extend the built-in table. It matches a simple
// command whose name (without its directory) is Name and whose first
// arguments equal Args ("*" matches any single argument; an empty Args
// matches any arguments).
type CommandRule struct {
	Name     string
	Args     []string
	Decision sandbox.Decision // anything but allow or deny means ask
	Rule     string           // reported in Verdict.Rule; "shell.user_rule" when empty
	Reason   string
}

// ruleDecision is the decision of a user's [CommandRule]: anything but
// allow or deny means ask.
func ruleDecision(d sandbox.Decision) sandbox.Decision {
	switch d {
	case sandbox.Allow, sandbox.Deny:
		return d
	}
	return sandbox.Ask
}

// verdict is the internal form of a decision.
type verdict struct {
	dec               sandbox.Decision
	set               bool
	rule, cmd, reason string
}

// parserPool reuses bash parsers: building one costs more than parsing a
// short command.
var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Analyze decides about cmd. It never runs anything, never panics (an
// internal error is a deny) and always returns the same verdict for the
// same command and workspace.
func (p *Policy) Analyze(cmd string) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = Verdict{Decision: sandbox.Deny, Rule: "shell.internal_error",
				Command: clip(cmd), Reason: "the command could not be analysed"}
		}
	}()
	return p.analyze(cmd)
}

// analyze is Analyze without the recovery, for the fuzz test.
func (p *Policy) analyze(cmd string) Verdict {
	a := newAnalyzer(p)
	a.script(cmd, nil)
	b := a.best
	if !b.set {
		b = verdict{dec: sandbox.Allow, rule: "shell.empty", reason: "nothing to run"}
	}
	v := Verdict{Decision: b.dec, Rule: b.rule, Command: clip(b.cmd),
		Reason: b.reason, Commands: a.cmds, Simple: a.commands(),
		ControlPaths: a.control}
	a.release()
	return v
}

// analyzerPool reuses analyzers and their path caches, which together
// were a quarter of the bytes a decision allocated. An analyzer lost to a
// panic is simply not returned.
var analyzerPool = sync.Pool{New: func() any { return new(analyzer) }}

func newAnalyzer(p *Policy) *analyzer {
	a := analyzerPool.Get().(*analyzer)
	pc := a.pcache
	if pc == nil {
		pc = new([8]classified)
	}
	*a = analyzer{pol: p, maxBytes: p.MaxBytes, maxCmds: p.MaxCommands, budget: 4000, globBudget: 2048,
		pcache: pc}
	if a.maxBytes <= 0 {
		a.maxBytes = DefaultMaxBytes
	}
	if a.maxCmds <= 0 {
		a.maxCmds = DefaultMaxCommands
	}
	if filepath.IsAbs(p.Root) {
		a.root = cleanAbs(p.Root)
	}
	if filepath.IsAbs(p.Home) {
		if h := cleanAbs(p.Home); h != "/" {
			a.home = h
		}
	}
	a.cwd0[0] = a.root
	if a.root == "" {
		a.cwd0[0] = mUnknown
	}
	a.st.cwd = a.cwd0[:]
	return a
}

// cleanAbs is filepath.Clean for an absolute path, without its cost when
// the path is clean already, as the root and home always are.
func cleanAbs(s string) string {
	if s == "/" {
		return s
	}
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] == '/' {
		return filepath.Clean(s)
	}
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] != '/' {
			j++
		}
		if c := s[i+1 : j]; c == "" || c == "." || c == ".." {
			return filepath.Clean(s)
		}
		i = j
	}
	return s
}

// release returns a to the pool, dropping every reference it holds (the
// verdict keeps the commands slice, so that is never reused).
func (a *analyzer) release() {
	clear(a.pcache[:a.pn])
	*a = analyzer{pcache: a.pcache}
	analyzerPool.Put(a)
}

// script checks, parses and analyses src, the top-level command or code
// re-parsed from a wrapper (then sub is the command it came from).
func (a *analyzer) script(src string, sub *call) {
	shown := src
	if sub != nil {
		shown = sub.disp
	}
	if len(src) > a.maxBytes {
		a.note(sandbox.Deny, "shell.too_long", shown, "the command is longer than the policy allows")
		return
	}
	if rule, why := badShellText(src); rule != "" {
		a.note(sandbox.Deny, rule, shown, why)
		return
	}
	if a.depth > maxShellDepth {
		a.note(sandbox.Deny, "shell.too_deep", shown, "code nested in too many levels of wrappers")
		return
	}
	parser := parserPool.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	parserPool.Put(parser)
	if err != nil {
		a.note(sandbox.Deny, "shell.parse_error", shown, "the command does not parse as bash")
		return
	}
	a.depth++
	a.stmts(f.Stmts, ioCtx{})
	a.depth--
}

// badShellText reports text that bash and the parser could read
// differently, or that could mislead a user approving it: NUL, control
// characters other than tab and newline (mvdan treats \r as a blank, bash
// does not), bidirectional overrides and invalid UTF-8.
func badShellText(s string) (rule, reason string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0:
				return "shell.nul", "the command contains a NUL byte"
			case c == '\t' || c == '\n':
			case c < 0x20 || c == 0x7f:
				return "shell.control_character", "the command contains a control character"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return "shell.invalid_utf8", "the command is not valid UTF-8"
		}
		if unicode.IsControl(r) || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 {
			return "shell.control_character", "the command contains a control or bidirectional character"
		}
		i += size
	}
	return "", ""
}

// note records a decision; the strictest wins, and the first among equals.
// It is also recorded on the current simple command, as liftable by a
// policy rule when the rule is one of [liftableRules].
func (a *analyzer) note(dec sandbox.Decision, rule, cmd, reason string) {
	a.noteLift(dec, rule, cmd, reason, liftableRules[rule])
}

func (a *analyzer) noteLift(dec sandbox.Decision, rule, cmd, reason string, lift bool) {
	v := verdict{dec: dec, set: true, rule: rule, cmd: cmd, reason: reason}
	if !a.best.set || dec.Stricter(a.best.dec) {
		a.best = v
	}
	a.record(v, lift)
}

// probe runs fn and returns the strictest decision it noted, leaving the
// recorded verdict as it was.
func (a *analyzer) probe(fn func()) verdict {
	saved := a.best
	a.best = verdict{}
	fn()
	got := a.best
	a.best = saved
	return got
}

// clip shortens s for display, keeping it valid UTF-8.
func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

package shell

import (
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// makeFlags are GNU make's options. Long options must be spelled out:
// getopt would accept a prefix (--ev for --eval), which asks as unknown.
var makeFlags = sync.OnceValue(func() *flagSet {
	return newFlagSet(map[argKind]string{
		kBool: `short:b short:m short:B short:d short:e short:i short:k short:n short:p short:q short:r
			short:R short:s short:S short:t short:v short:w short:L short:h always-make environment-overrides
			ignore-errors keep-going check-symlink-times just-print dry-run recon print-data-base question
			no-builtin-rules no-builtin-variables silent quiet no-silent stop no-keep-going touch trace
			version print-directory no-print-directory warn-undefined-variables help`,
		kOptNum:   "short:j short:l jobs load-average max-load",
		kAttached: "short:O output-sync debug shuffle",
		kValue:    "short:o short:W old-file assume-old what-if new-file assume-new",
		kCode:     "short:f short:I file makefile include-dir",
		kDir:      "short:C directory",
		kAsk:      "short:E eval jobserver-auth jobserver-fds jobserver-style",
	})
})

// makeCmd allows make with its ordinary options, targets and variables in
// the workspace (S11).
func makeCmd(a *analyzer, c *call, s *cmdSpec) {
	hits, ops, rest := scanArgs(c.args(), makeFlags())
	saved := a.st
	defer func() { a.st = saved }()
	for _, h := range hits { // make changes directory before it reads anything
		if h.kind == kDir && h.has {
			a.projectPath(h.val, c)
			a.st.cwd = a.chdir(h.val)
		}
	}
	a.projectDir(c)
	a.projectOK(c)
	for i, h := range hits {
		if h.kind == kCode && (h.name == "f" || h.name == "file" || h.name == "makefile") &&
			(h.val.s == "-" || h.val.s == "/dev/stdin" || h.val.s == "/dev/fd/0" || h.val.s == "/proc/self/fd/0") {
			a.stdinProgram(c)
			hits[i].kind = kBool
		}
		if h.kind == kDir {
			hits[i].kind = kBool
		}
		if h.name == "p" || h.name == "print-data-base" { // make's variables include the environment
			a.note(sandbox.Ask, "shell.env_dump", c.disp, "make -p prints the environment, which may hold secrets")
			a.secretFlow = true
		}
	}
	a.projectFlags(c, hits)
	for _, op := range append(ops, rest...) {
		if isAssignArg(op.s) {
			a.makeVar(op.s, c)
			continue
		}
		a.makeTarget(op, c)
	}
	a.makeEnv(c)
}

// isAssignArg reports a make argument that defines a variable: any word
// with "=" that is not an option.
func isAssignArg(s string) bool {
	return strings.Contains(s, "=") && !strings.HasPrefix(s, "-")
}

// makeTarget checks a target: a file target must lie in the workspace;
// the conventional install, deploy and server targets ask.
func (a *analyzer) makeTarget(t field, c *call) {
	switch {
	case isDynamic(t.s):
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "a make target known only at run time")
	case strings.Contains(t.s, "/") || strings.HasPrefix(t.s, mHome):
		a.projectPath(t, c) // a file target: one outside is not the workspace's to build
	case isNotBuild(t.s):
		a.askNotBuild(c, t.s)
	}
}

// makeVar checks a variable defined on make's command line. Make expands
// its value ($(shell …), $(eval …)) and pastes it into recipes that the
// shell runs, and exports it to them: a value with expansions or shell
// syntax is code given on the command line; make's own control variables
// change how it runs; the rest is checked as an environment variable.
func (a *analyzer) makeVar(arg string, c *call) {
	lhs, val, _ := strings.Cut(arg, "=")
	lhs = strings.TrimRight(lhs, " \t")
	name := strings.TrimRight(lhs, ":+?!")
	op := lhs[len(name):] // :=, ::=, +=, ?= or the shell assignment !=
	name = strings.TrimSpace(name)
	switch {
	case isDynamic(arg):
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "a make variable known only at run time")
		return
	case strings.Contains(op, "!"):
		a.note(sandbox.Ask, "shell.exec_option", c.disp, "make "+show(name)+" != runs its value as a shell command")
		return
	case !validName(name) || makeControlVar(name):
		a.note(sandbox.Ask, "shell.exec_option", c.disp, "make "+show(name)+
			"=: a variable that changes how make reads makefiles or runs recipes")
		return
	}
	a.makeValue(name, val, c)
	a.checkEnv(name, val, true)
}

// makeValue asks for a variable value make or a recipe's shell would
// evaluate, and checks a path outside the workspace as code from there.
func (a *analyzer) makeValue(name, val string, c *call) {
	if i := strings.IndexFunc(val, makeUnsafe); i >= 0 {
		a.note(sandbox.Ask, "shell.exec_option", c.disp, "the value of make variable "+show(name)+" holds "+
			"make or shell syntax ("+val[i:i+1]+"), which make or a recipe would run as code")
		return
	}
	for _, w := range strings.Fields(val) {
		if i := strings.LastIndexByte(w, '='); i >= 0 && leadsOut(w[i+1:]) {
			w = w[i+1:] // -exec=/elsewhere/x
		}
		if leadsOut(w) {
			a.projectPath(field{s: w}, c)
		}
	}
}

// makeUnsafe reports the characters of a variable value that make or the
// shell of a recipe would interpret: expansions, quotes, separators,
// redirections and substitutions.
func makeUnsafe(r rune) bool {
	return strings.ContainsRune("$`'\"\\;&|<>(){}\n", r)
}

// makeControlVar reports the variables that change how make itself runs:
// its shell, flags, makefiles, search paths and the special .VARIABLES.
func makeControlVar(name string) bool {
	switch name {
	case "SHELL", "MFLAGS", "VPATH", "GPATH":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "MAKE") || strings.HasPrefix(name, "GNUMAKE")
}

// makeEnv checks the environment the command line gives make (prefix
// assignments and env's), which make imports as variables: a value there
// is expanded like one on its command line.
func (a *analyzer) makeEnv(c *call) {
	for _, kv := range a.envPrefix {
		name, val, _ := strings.Cut(kv, "=")
		if strings.IndexFunc(val, makeUnsafe) >= 0 || isDynamic(val) {
			a.note(sandbox.Ask, "shell.exec_option", c.disp, "make imports environment variable "+show(name)+
				", whose value holds make or shell syntax that make or a recipe would run as code")
		}
	}
}

package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// The builtins of T21 that take variable names or callbacks (see
// evalagain.go). Each stays read-only unless a name holds a subscript
// that is not a literal number, or a callback is code.

func registerEvalBuiltins() {
	ro := func(check func(*analyzer, *call, *cmdSpec)) cmdSpec {
		return cmdSpec{dec: sandbox.Allow, rule: "shell.read_only", reason: "read-only command", check: check}
	}
	register("printf", ro(printfCmd))
	register("read", ro(readBuiltin))
	register("mapfile readarray", ro(mapfileCmd))
	register("getopts", ro(getoptsCmd))
	register("wait", ro(waitCmd))
	register("unset", ro(unsetCmd))
	register("test [", ro(testCmd))
	register("compgen", ro(compgenCmd))
}

// printfCmd: printf -v NAME assigns NAME.
func printfCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	for i := 0; i < len(args) && strings.HasPrefix(args[i].s, "-") && args[i].s != "--"; i++ {
		if v, ok := strings.CutPrefix(args[i].s, "-v"); ok {
			if v == "" && i+1 < len(args) {
				i++
				v = args[i].s
			}
			a.assignsName(v, c)
		}
	}
}

// readBuiltin: read NAME… and read -a NAME assign their names.
func readBuiltin(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "adinNptu")
	for _, f := range o.vals("a") {
		a.assignsName(f.s, c)
	}
	for _, f := range o.ops {
		a.assignsName(f.s, c)
	}
}

// mapfileCmd: mapfile [-C callback] [ARRAY]; the callback is a command.
func mapfileCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "dnOsucC")
	for _, f := range o.vals("C") {
		a.reparse(f.s, c, sandbox.Ask, ruleEvalAgain, "mapfile -C runs its callback as a command")
	}
	for _, f := range o.ops {
		a.assignsName(f.s, c)
	}
}

// getoptsCmd: getopts OPTSTRING NAME [ARG…] assigns NAME.
func getoptsCmd(a *analyzer, c *call, s *cmdSpec) {
	if args := c.args(); len(args) > 1 {
		a.assignsName(args[1].s, c)
	}
}

// waitCmd: wait -p NAME assigns NAME.
func waitCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "p")
	for _, f := range o.vals("p") {
		a.assignsName(f.s, c)
	}
}

// unsetCmd: unset 'a[i]' evaluates the subscript of an indexed array.
func unsetCmd(a *analyzer, c *call, s *cmdSpec) {
	for _, f := range parseOpts(c.args(), "").ops {
		a.nameArg(f.s, c.disp)
	}
}

// testCmd: test -v NAME and [ -v NAME ] evaluate a subscript in NAME;
// the arithmetic comparisons of test parse numbers and evaluate nothing.
func testCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	for i := 0; i+1 < len(args); i++ {
		if args[i].s == "-v" || args[i].s == "-R" {
			a.nameArg(args[i+1].s, c.disp)
		}
	}
}

// compgenCmd: -C runs a command, -F a function, and -W's word list is
// expanded again (parameters and command substitutions included).
func compgenCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "oAGWFCXPSV")
	for _, f := range o.vals("C") {
		a.reparse(f.s, c, sandbox.Ask, ruleEvalAgain, "compgen -C runs a command")
	}
	if o.has("F") {
		a.evalAgain(c.disp, "the function compgen -F calls")
	}
	for _, f := range o.vals("W") {
		if strings.ContainsAny(f.s, "$`") || isDynamic(f.s) {
			a.evalAgain(c.disp, "the word list of compgen -W")
		}
	}
	for _, f := range o.vals("V") {
		a.assignsName(f.s, c)
	}
}

// assignsName checks a name a builtin assigns and records that its value
// is no longer known.
func (a *analyzer) assignsName(name string, c *call) {
	a.nameArg(name, c.disp)
	a.setUnknown(name, c.disp)
}

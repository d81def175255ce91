package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Checkers for text and file-tree tools whose arguments mix programs,
// patterns and paths: grep, rg, find, jq, sed, awk, tar and archivers.

// grepCmd skips the pattern (the first operand unless -e or -f gives it)
// and reads the rest; rg --pre runs a program on every file.
func grepCmd(short string, long ...string) func(*analyzer, *call, *cmdSpec) {
	return func(a *analyzer, c *call, s *cmdSpec) {
		o := parseOpts(c.args(), short, long...)
		a.note(s.dec, s.rule, c.disp, "searches files")
		if c.name == "rg" && o.hasLong("pre", "pre-glob") {
			a.note(sandbox.Ask, "shell.rg_pre", c.disp, "rg --pre runs a program on every file searched")
		}
		a.programFlags(c, o)
		for _, f := range o.vals("f", "file") {
			a.access(f, accRead, c.disp)
		}
		ops := o.ops
		if !o.has("e", "regexp", "f", "file") && len(ops) > 0 {
			ops = ops[1:]
		}
		if len(ops) == 0 && (c.name == "rg" || o.has("r", "R", "recursive", "dereference-recursive")) {
			ops = []field{{s: "."}}
		}
		for _, f := range ops {
			if f.s != "-" {
				a.access(f, accRead, c.disp)
			}
		}
	}
}

// findValueTests are find primaries that take one argument.
var findValueTests = strings.Fields(`-name -iname -path -ipath -wholename -iwholename -regex -iregex
	-type -xtype -size -perm -user -group -uid -gid -mtime -mmin -atime -amin -ctime -cmin -newer
	-anewer -cnewer -maxdepth -mindepth -links -inum -samefile -lname -ilname -used -fstype -printf
	-context -regextype -D -files0-from`)

// findCmd reads the start paths, analyses the commands of -exec, -execdir,
// -ok and -okdir with {} standing for a file below a start path, checks
// -delete as a recursive delete of the start paths and -fprint* as writes.
func findCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "lists files")
	args := c.args()
	i := 0
	for i < len(args) && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O")) {
		i++
	}
	var starts []field
	for ; i < len(args); i++ {
		v := args[i].s
		if len(v) > 1 && v[0] == '-' || v == "(" || v == "!" || v == ")" || v == "," {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []field{{s: "."}}
	}
	a.echoed, a.echoedOK = nil, true
	for _, st := range starts {
		a.access(st, accRead, c.disp)
		a.echoed = append(a.echoed, strings.TrimSuffix(st.s, "/")+"/"+mChild)
	}
	for ; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			a.echoedOK = false
			j := i + 1
			for j < len(args) && args[j].s != ";" && args[j].s != "+" {
				j++
			}
			a.findExec(args[i+1:j], starts, v == "-execdir" || v == "-okdir", c)
			i = j
		case v == "-delete":
			for _, st := range starts {
				a.access(st, accDelete, c.disp)
			}
		case v == "-fprint" || v == "-fprint0" || v == "-fls" || v == "-fprintf":
			if i+1 < len(args) {
				a.access(args[i+1], accWrite, c.disp)
			}
			i++
			if v == "-fprintf" {
				i++
			}
		case strings.HasPrefix(v, "-newer") || containsStr(findValueTests, v):
			i++
		}
	}
}

func (a *analyzer) findExec(cmd, starts []field, inDir bool, c *call) {
	if len(cmd) == 0 {
		a.note(sandbox.Ask, "shell.find_exec", c.disp, "find runs a command")
		return
	}
	saved := a.st
	for _, st := range starts {
		child := strings.TrimSuffix(st.s, "/") + "/" + mChild
		if inDir {
			a.st.cwd = a.chdir(st)
			child = "./" + mChild
		}
		argv := make([]field, len(cmd))
		for k, f := range cmd {
			argv[k] = f
			if strings.Contains(f.s, "{}") {
				argv[k] = field{s: strings.ReplaceAll(f.s, "{}", child), glob: f.glob || st.glob}
			}
		}
		a.exec(c.sub(argv))
		a.st = saved
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jqCmd: the first operand is the filter; env and $ENV expose variables.
func jqCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "filters JSON")
	args := c.args()
	filter := false
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--arg" || v == "--argjson":
			i += 2
		case v == "--slurpfile" || v == "--rawfile":
			if i += 2; i < len(args) {
				a.access(args[i], accRead, c.disp)
			}
		case v == "-f" || v == "--from-file":
			if i++; i < len(args) {
				a.access(args[i], accRead, c.disp)
			}
			filter = true
		case v == "-L" || v == "--indent":
			i++
		case v == "--args" || v == "--jsonargs":
			return
		case len(v) > 1 && v[0] == '-':
		case !filter:
			filter = true
			if strings.Contains(v, "env") || strings.Contains(v, "$__prog") || isDynamic(v) {
				a.note(sandbox.Ask, "shell.secret_variable", c.disp, "the jq filter can read environment variables")
			}
		default:
			a.access(args[i], accRead, c.disp)
		}
	}
}

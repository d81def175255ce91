package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Argument checkers for commands that read, write, delete or change files,
// and for a few shell builtins. Each notes the spec's own decision and then
// whatever its operands require.

func echoCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "prints its arguments")
	words := make([]string, 0, len(c.args()))
	for _, f := range c.args() {
		if isDynamic(f.s) {
			return
		}
		if len(words) == 0 && strings.HasPrefix(f.s, "-") {
			continue
		}
		words = append(words, strings.Fields(f.s)...)
	}
	a.echoed, a.echoedOK = words, true
}

// askIf decides dec when one of the options is given (date -s, sysctl -w).
func askIf(dec sandbox.Decision, short, long string) func(*analyzer, *call, *cmdSpec) {
	return func(a *analyzer, c *call, s *cmdSpec) {
		o := parseOpts(c.args(), "")
		if o.has(short, long) || slices.ContainsFunc(o.ops, func(f field) bool { return strings.Contains(f.s, "=") }) {
			a.note(dec, "shell.system_control", c.disp, "changes system settings")
			return
		}
		a.note(s.dec, s.rule, c.disp, s.reason)
	}
}

func askIfOperands(a *analyzer, c *call, s *cmdSpec) {
	if o := parseOpts(c.args(), ""); len(o.ops) > 0 {
		a.note(sandbox.Ask, "shell.system_control", c.disp, "changes system settings")
		return
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// setCmd: set alone prints every variable, secrets included.
func setCmd(a *analyzer, c *call, s *cmdSpec) {
	if len(c.args()) == 0 {
		a.note(sandbox.Ask, "shell.env_dump", c.disp, "prints variables, which may hold secrets")
		a.secretFlow = true
		return
	}
	a.note(s.dec, s.rule, c.disp, "sets shell options")
}

func printenvCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "")
	if len(o.ops) == 0 {
		a.note(sandbox.Ask, "shell.env_dump", c.disp, "prints the environment, which may hold secrets")
		a.secretFlow = true
		return
	}
	for _, f := range o.ops {
		if isDynamic(f.s) || secretVarName(f.s) {
			a.note(sandbox.Ask, "shell.secret_variable", c.disp, "prints a variable that may hold a secret")
			a.secretFlow = true
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// cdCmd tracks the working directory for the commands after it.
func cdCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "changes directory")
	var ops []field
	for _, f := range c.args() {
		if f.s != "--" && (!strings.HasPrefix(f.s, "-") || f.s == "-") {
			ops = append(ops, f)
		}
	}
	switch c.name {
	case "popd":
		if n := len(a.st.stack); n > 0 {
			a.st.cwd, a.st.stack = a.st.stack[n-1], a.st.stack[:n-1:n-1]
		} else {
			a.st.cwd = []string{mUnknown}
		}
		return
	case "pushd":
		if len(ops) == 0 || strings.HasPrefix(ops[0].s, "+") || ops[0].s == "-" {
			a.st.cwd = []string{mUnknown}
			return
		}
		a.st.stack = append(slices.Clip(a.st.stack), a.st.cwd)
	}
	dir := field{s: mHome + "~"}
	if h, ok := a.st.vars["HOME"]; ok {
		dir = field{s: h}
	}
	if len(ops) > 0 {
		dir = ops[0]
	}
	if dir.s == "-" {
		a.st.cwd = []string{mUnknown}
		return
	}
	a.st.cwd = a.chdir(dir)
}

// chdir is the set of working directories after cd f.
func (a *analyzer) chdir(f field) []string {
	var out []string
	for _, cwd := range a.st.cwd {
		d := dirOf(f.s, cwd)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func dirOf(s, cwd string) string {
	switch {
	case isDynamic(s):
		return mUnknown
	case strings.HasPrefix(s, mHome):
		return homeDir(s[1:])
	case strings.HasPrefix(s, "/"):
		return path.Clean(s)
	case cwd == mUnknown:
		return mUnknown
	case strings.HasPrefix(cwd, mHome):
		return homeDir(cwd[1:] + "/" + s)
	}
	return path.Clean(cwd + "/" + s)
}

// homeDir cleans "~/…"; climbing out of the home leads to "/".
func homeDir(t string) string {
	user, rest, _ := strings.Cut(t, "/")
	rest = path.Clean(rest)
	if rest == ".." || strings.HasPrefix(rest, "../") {
		return "/"
	}
	if rest == "." {
		return mHome + user
	}
	return mHome + user + "/" + rest
}

// readCmd checks the operands of a read-only command as reads. short lists
// its options that take a value; out marks output options: "o" when -o and
// --output name a file written, "2" when the second operand is written.
func readCmd(short, out string) func(*analyzer, *call, *cmdSpec) {
	return func(a *analyzer, c *call, s *cmdSpec) {
		o := parseOpts(c.args(), short+strings.ReplaceAll(out, "2", ""), "output")
		a.note(s.dec, s.rule, c.disp, s.reason)
		if strings.Contains(out, "o") {
			for _, f := range o.vals("o", "output") {
				a.access(f, accWrite, c.disp)
			}
		}
		if c.name == "ls" {
			a.echoed, a.echoedOK = []string{"./" + mChild}, true
			for i, f := range o.ops {
				if i == 0 {
					a.echoed = nil
				}
				a.echoed = append(a.echoed, strings.TrimSuffix(f.s, "/")+"/"+mChild)
			}
		}
		a.programFlags(c, o)
		ops := o.ops
		if len(ops) == 0 && (c.name == "ls" || c.name == "dir" || c.name == "vdir" || c.name == "du" || c.name == "tree") {
			ops = []field{{s: "."}} // they list the working directory
		}
		for i, f := range ops {
			switch {
			case f.s == "-":
			case i == 1 && strings.Contains(out, "2"):
				a.access(f, accWrite, c.disp)
			default:
				a.access(f, accRead, c.disp)
			}
		}
	}
}

func teeCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "", "output-error")
	a.note(s.dec, s.rule, c.disp, "copies its input")
	for _, f := range o.ops {
		a.access(f, accWrite, c.disp)
		if a.secretFlow || c.io.secretIn {
			a.taint(f)
		}
	}
}

func deleteCmd(a *analyzer, c *call, s *cmdSpec) {
	short := ""
	if c.name == "shred" {
		short = "ns"
	}
	o := parseOpts(c.args(), short, "iterations", "size", "random-source")
	for _, f := range o.ops {
		a.access(f, accDelete, c.disp)
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// writeCmd checks every operand as a file written.
func writeCmd(short string) func(*analyzer, *call, *cmdSpec) {
	return func(a *analyzer, c *call, s *cmdSpec) {
		o := parseOpts(c.args(), short)
		for _, f := range o.ops {
			a.access(f, accWrite, c.disp)
		}
		a.note(s.dec, s.rule, c.disp, s.reason)
	}
}

// copyCmd handles cp, install and mv: sources are read (moved away for
// mv), the destination is written, and so is each source's name inside it.
func copyCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "tSmogb", "target-directory", "suffix", "mode", "owner", "group")
	if c.name == "install" {
		for _, m := range o.vals("m", "mode") {
			if setuidMode(m.s) {
				a.note(sandbox.Deny, "shell.setuid", c.disp, "installs a setuid or setgid program")
			}
		}
		if o.has("d", "directory") {
			for _, f := range o.ops {
				a.access(f, accWrite, c.disp)
			}
			a.note(s.dec, s.rule, c.disp, s.reason)
			return
		}
	}
	srcAcc := accRead
	if c.name == "mv" {
		srcAcc = accWrite
	}
	dests := o.vals("t", "target-directory")
	srcs := o.ops
	if len(dests) == 0 && len(srcs) > 0 {
		dests, srcs = srcs[len(srcs)-1:], srcs[:len(srcs)-1]
	}
	secret := false
	for _, f := range srcs {
		a.access(f, srcAcc, c.disp)
		secret = secret || a.anySecret(f)
	}
	a.destinations(dests, srcs, c)
	for _, d := range dests {
		if secret {
			a.taint(d)
			for _, f := range srcs {
				a.taint(field{s: strings.TrimSuffix(d.s, "/") + "/" + path.Base(f.s)})
			}
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// destinations checks each destination, and the name each source gets
// when the destination is a directory.
func (a *analyzer) destinations(dests, srcs []field, c *call) {
	for _, d := range dests {
		a.access(d, accWrite, c.disp)
		for _, f := range srcs {
			if !isDynamic(f.s) && !isDynamic(d.s) {
				a.access(field{s: strings.TrimSuffix(d.s, "/") + "/" + path.Base(f.s)}, accWrite, c.disp)
			}
		}
	}
}

func lnCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "tS", "target-directory", "suffix")
	dests := o.vals("t", "target-directory")
	targets := o.ops
	switch {
	case len(dests) > 0:
	case len(targets) >= 2:
		dests, targets = targets[len(targets)-1:], targets[:len(targets)-1]
	case len(targets) == 1:
		dests = []field{{s: path.Base(targets[0].s)}}
	}
	if len(dests) == 1 && len(targets) == 1 {
		a.recordLink(dests[0], targets[0], o.has("s", "symbolic"))
	}
	if len(targets) == 1 && dests[0].s == path.Base(targets[0].s) {
		targets = nil
	}
	a.destinations(dests, targets, c)
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// chmodCmd handles chmod, chown, chgrp, chattr and setfacl: the mode or
// owner comes first, the rest are files whose permissions change.
func chmodCmd(a *analyzer, c *call, s *cmdSpec) {
	var ops []field
	needMode := c.name != "setfacl"
	args := c.args()
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case strings.HasPrefix(v, "--reference"):
			needMode = false
			if !strings.Contains(v, "=") {
				i++
			}
		case strings.HasPrefix(v, "--"):
		case c.name == "setfacl" && len(v) == 2 && strings.ContainsRune("mxMX", rune(v[1])):
			i++
		case needMode && (c.name == "chmod" || c.name == "chattr") && len(v) > 1 && strings.Trim(v[1:], "rwxXstugoa+-=,01234567") == "" && (v[0] == '-' || v[0] == '+' || v[0] == '='):
			needMode = false
			if setuidMode(v) {
				a.note(sandbox.Deny, "shell.setuid", c.disp, "makes a program setuid or setgid")
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
		case needMode:
			needMode = false
			if c.name == "chmod" && setuidMode(v) {
				a.note(sandbox.Deny, "shell.setuid", c.disp, "makes a program setuid or setgid")
			}
		default:
			ops = append(ops, args[i])
		}
	}
	for _, f := range ops {
		a.access(f, accPerm, c.disp)
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// setuidMode reports a chmod mode that sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if m != "" && strings.Trim(m, "01234567") == "" {
		return len(m) >= 4 && (m[len(m)-4]-'0')&6 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.Contains(clause[i:], "s") {
			return true
		}
	}
	return false
}

func ddCmd(a *analyzer, c *call, s *cmdSpec) {
	for _, f := range c.args() {
		switch {
		case strings.HasPrefix(f.s, "if="):
			a.access(field{s: f.s[3:], glob: f.glob}, accRead, c.disp)
		case strings.HasPrefix(f.s, "of="):
			a.access(field{s: f.s[3:], glob: f.glob}, accWrite, c.disp)
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

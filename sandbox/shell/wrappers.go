package shell

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Wrappers: commands that run another command, which is analysed in turn.

func registerWrappers() {
	w := func(names, short string, long []string, skip int, outs string, dec sandbox.Decision, rule, reason string) {
		register(names, cmdSpec{dec: dec, rule: rule, reason: reason, check: wrapCmd(short, long, skip, outs)})
	}
	none := func(names, short string, long []string, skip int, outs string) {
		w(names, short, long, skip, outs, sandbox.Allow, "shell.read_only", "runs a command")
	}
	none("catchsegv unbuffer builtin", "", nil, 0, "")
	w("nohup setsid", "", nil, 0, "", sandbox.Ask, "shell.background", "keeps a command running after the command line ends")
	none("nice", "n", []string{"adjustment"}, 0, "")
	none("timeout", "sk", []string{"signal", "kill-after"}, 1, "")
	none("ionice", "cnpPu", []string{"class", "classdata", "pid", "pgid", "uid"}, 0, "")
	none("stdbuf", "ioe", []string{"input", "output", "error"}, 0, "")
	none("time", "fo", []string{"format", "output"}, 0, "o")
	none("strace", "oeEpPsuIbaXOSU", []string{"output", "trace", "signal", "attach", "env", "user"}, 0, "o")
	none("ltrace", "oeEpsunlaADFIxXw", []string{"output"}, 0, "o")
	none("chrt", "TPD", nil, 1, "")
	none("taskset faketime", "", nil, 1, "")
	w("firejail unshare", "", nil, 0, "", sandbox.Ask, "shell.wrapper", "runs a command in a changed environment")
	w("chroot", "", nil, 1, "", sandbox.Deny, "shell.privilege_escalation", "runs a command in another root directory, which needs root")
	w("proxychains proxychains4 torsocks tsocks", "f", nil, 0, "", sandbox.Ask, "shell.network", "sends traffic through a proxy")
	register("busybox toybox", cmdSpec{dec: sandbox.Ask, rule: "shell.wrapper", reason: "runs an applet", check: wrapCmd("", nil, 0, "")})
	ro := cmdSpec{dec: sandbox.Allow, rule: "shell.read_only", reason: "runs a command"}
	for name, check := range map[string]func(*analyzer, *call, *cmdSpec){
		"env": envCmd, "command": commandCmd, "exec": commandCmd, "xargs": xargsCmd, "watch": watchCmd,
		"parallel": parallelCmd, "eval": evalCmd, "source": sourceCmd, ".": sourceCmd, "trap": trapCmd,
		"alias": aliasCmd, "flock": flockCmd, "script": flockCmd,
	} {
		s := ro
		s.check = check
		shellTable[name] = &s
	}
}

// wrapCmd skips the wrapper's options (short and long list those taking a
// value; outs those whose value is a file written; strace's -E sets a
// variable) and skip positional arguments, then analyses the rest.
func wrapCmd(short string, long []string, skip int, outs string) func(*analyzer, *call, *cmdSpec) {
	return func(a *analyzer, c *call, s *cmdSpec) {
		args := c.args()
		i := 0
	scan:
		for i < len(args) {
			v := args[i].s
			switch {
			case v == "--":
				i++
				break scan
			case len(v) < 2 || v[0] != '-' || isDynamic(v):
				break scan
			case strings.HasPrefix(v, "--"):
				name, val, ok := strings.Cut(v[2:], "=")
				if !ok && slices.Contains(long, name) && i+1 < len(args) {
					i++
					val = args[i].s
				}
				a.wrapOpt(name, val, outs, c)
				i++
				continue
			}
			i++
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(short, v[j]) < 0 {
					continue
				}
				val := v[j+1:]
				if val == "" && i < len(args) {
					val = args[i].s
					i++
				}
				a.wrapOpt(v[j:j+1], val, outs, c)
				break
			}
		}
		i = min(i+skip, len(args))
		if s.dec != sandbox.Allow || i == len(args) {
			a.note(s.dec, s.rule, c.disp, s.reason)
		}
		if i < len(args) {
			a.exec(c.sub(args[i:]))
		}
	}
}

func (a *analyzer) wrapOpt(name, val, outs string, c *call) {
	switch {
	case (name == "o" || name == "output") && strings.Contains(outs, "o"):
		a.access(field{s: val}, accWrite, c.disp)
	case (name == "E" || name == "env") && strings.Contains(val, "="):
		k, v, _ := strings.Cut(val, "=")
		a.checkEnv(k, v, true)
	case name == "u" || name == "user":
		a.note(sandbox.Ask, "shell.other_user", c.disp, "runs a command as another user")
	}
}

// envCmd skips env's options and assignments (checking each variable),
// follows -C and -S, and analyses the command; env alone prints secrets.
func envCmd(a *analyzer, c *call, s *cmdSpec) {
	args := slices.Clone(c.args())
	saved, env := a.st, a.envPrefix
	defer func() { a.st, a.envPrefix = saved, env }()
	i := 0
	for i < len(args) {
		v := args[i].s
		if v == "--" {
			i++
			break
		}
		if isAssignWord(v) {
			name, val, _ := strings.Cut(v, "=")
			a.checkEnv(name, val, true)
			a.envPrefix = append(slices.Clip(a.envPrefix), v)
			i++
			continue
		}
		if len(v) < 1 || v[0] != '-' || isDynamic(v) {
			break
		}
		i++
		name, val, hasVal := strings.Cut(strings.TrimLeft(v, "-"), "=")
		if !strings.HasPrefix(v, "--") && len(name) > 1 && strings.IndexByte("CSu", name[0]) >= 0 {
			name, val, hasVal = name[:1], name[1:], true
		}
		switch name {
		case "C", "chdir", "S", "split-string", "u", "unset":
			if !hasVal && i < len(args) {
				val = args[i].s
				i++
			}
		}
		switch name {
		case "C", "chdir":
			a.st.cwd = a.chdir(field{s: val})
		case "S", "split-string":
			if strings.ContainsAny(val, `'"\$`) {
				a.note(sandbox.Ask, "shell.env_split", c.disp, "env -S splits a string the analyser does not follow exactly")
			}
			var split []field
			for _, w := range strings.Fields(val) {
				split = append(split, field{s: w})
			}
			args = append(split, args[i:]...)
			i = 0
		}
	}
	if i >= len(args) {
		a.note(sandbox.Ask, "shell.env_dump", c.disp, "prints the environment, which may hold secrets")
		a.secretFlow = true
		return
	}
	a.exec(c.sub(args[i:]))
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && validName(name)
}

// commandCmd handles command and exec: command -v only looks a name up.
func commandCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	i := 0
	for i < len(args) {
		v := args[i].s
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' || isDynamic(v) {
			break
		}
		if c.name == "command" && strings.ContainsAny(v, "vV") {
			a.note(sandbox.Allow, "shell.read_only", c.disp, "looks a command up")
			return
		}
		if c.name == "exec" && v == "-a" {
			i++
		}
		i++
	}
	if i >= len(args) {
		a.note(s.dec, s.rule, c.disp, "changes the shell's own redirections")
		return
	}
	a.exec(c.sub(args[i:]))
}

// evalCmd re-parses its arguments; eval of a command substitution runs
// downloaded or decoded content and is denied.
func evalCmd(a *analyzer, c *call, s *cmdSpec) {
	if len(c.args()) == 0 {
		a.note(s.dec, s.rule, c.disp, "eval without arguments")
		return
	}
	a.reparse(joinFields(c.args()), c, sandbox.Ask, "shell.eval", "eval runs its arguments as shell code")
}

func sourceCmd(a *analyzer, c *call, s *cmdSpec) {
	if len(c.args()) == 0 {
		a.note(sandbox.Ask, "shell.run_script", c.disp, "source without a file")
		return
	}
	f := c.args()[0]
	if (f.s == "/dev/stdin" || f.s == "-" || f.s == "/proc/self/fd/0" || f.s == "/dev/fd/0") && (c.io.pipeIn || c.io.substIn || c.io.hasFeed) {
		a.stdinProgram(c)
		return
	}
	if fromSubst(f.s) {
		a.note(sandbox.Deny, "shell.exec_substitution", c.disp, "runs the output of a substitution as code")
	}
	a.note(sandbox.Ask, "shell.run_script", c.disp, "runs a script in this shell")
	a.access(f, accExec, c.disp)
}

func trapCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-") {
		a.note(s.dec, s.rule, c.disp, "lists or resets traps")
		return
	}
	a.reparse(args[0].s, c, sandbox.Allow, "", "")
	a.note(s.dec, s.rule, c.disp, "sets a trap")
}

func aliasCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "lists aliases")
	for _, f := range c.args() {
		if _, val, ok := strings.Cut(f.s, "="); ok {
			a.reparse(val, c, sandbox.Ask, "shell.alias", "defines an alias, which can shadow commands")
		}
	}
}

// flockCmd handles flock and script: -c runs a shell command line; flock
// also runs the command after its lock file.
func flockCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	pos := 0
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--command" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "c"):
			code := v[strings.IndexByte(v, 'c')+1:]
			if code == "" && i+1 < len(args) {
				code = args[i+1].s
			}
			a.reparse(code, c, sandbox.Ask, "shell.wrapper", "runs a shell command line")
			return
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if c.name == "flock" && (v == "-w" || v == "-E" || v == "--timeout" || v == "--conflict-exit-code") {
				i++
			}
		case c.name == "flock" && pos == 0:
			pos++
		case c.name == "flock":
			a.exec(c.sub(args[i:]))
			return
		default:
			a.access(args[i], accWrite, c.disp)
		}
	}
	a.note(sandbox.Ask, "shell.wrapper", c.disp, s.reason)
}

package shell

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// Shells and interpreters: bash -c code is re-parsed and analysed; a
// program read from a pipe (curl … | sh) is denied.

func isShellName(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh":
		return true
	}
	return false
}

// shellCmd handles sh, bash and the other shells.
func shellCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	cmdMode, stdinMode := false, false
	i := 0
scan:
	for ; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--" || v == "-":
			stdinMode = stdinMode || v == "-"
			i++
			break scan
		case v == "--rcfile" || v == "--init-file":
			if i++; i < len(args) {
				a.access(args[i], accExec, c.disp)
			}
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && !isDynamic(v):
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c':
					cmdMode = true
				case 's':
					stdinMode = true
				case 'o', 'O':
					if j == len(v)-1 {
						i++
					}
				}
			}
		default:
			break scan
		}
	}
	rest := args[min(i, len(args)):]
	switch {
	case cmdMode && len(rest) == 0:
		a.note(sandbox.Ask, "shell.interpreter", c.disp, "a shell -c without code")
	case cmdMode:
		saved := a.st
		for k, f := range rest[1:min(len(rest), 10)] {
			a.setVar(string(rune('0'+k)), f.s)
		}
		a.reparse(rest[0].s, c, sandbox.Allow, "", "")
		a.st = saved
	case stdinMode || len(rest) == 0:
		a.stdinProgram(c)
	case rest[0].s == "/dev/stdin" || rest[0].s == "/dev/fd/0" || rest[0].s == "/proc/self/fd/0":
		a.stdinProgram(c)
	default:
		a.note(sandbox.Ask, "shell.run_script", c.disp, "runs a shell script")
		a.access(rest[0], accExec, c.disp)
	}
}

// stdinProgram decides about a shell or interpreter that reads its
// program from stdin.
func (a *analyzer) stdinProgram(c *call) {
	switch {
	case c.io.pipeIn:
		disp := c.disp
		if c.io.pipeDisp != "" {
			disp = c.io.pipeDisp + " | " + c.disp
		}
		a.note(sandbox.Deny, "shell.pipe_to_interpreter", disp, "pipes data into a shell or interpreter, which runs it as code")
	case c.io.substIn:
		a.note(sandbox.Deny, "shell.exec_substitution", c.disp, "runs the output of a substitution as code")
	case c.io.hasFeed && (isShellName(c.name) || c.name == "source" || c.name == "."):
		a.reparse(c.io.feed, c, sandbox.Deny, "shell.heredoc_code", "feeds code to a shell through a here-document or here-string")
	case c.io.hasFile:
		a.note(sandbox.Ask, "shell.run_script", c.disp, "runs a script from a file")
		a.access(c.io.stdinFile, accExec, c.disp)
	default:
		a.note(sandbox.Ask, "shell.interpreter", c.disp, "runs a shell or interpreter")
	}
}

// interpCode lists, per interpreter family, the options whose presence
// means the program is given on the command line, and those taking a
// value.
var interpCode = map[string][2]string{
	"python": {"cm", "WXQ"}, "pypy": {"cm", "WXQ"}, "perl": {"eE", ""}, "ruby": {"e", "IrCE"},
	"node": {"ep", "r"}, "nodejs": {"ep", "r"}, "bun": {"e", ""}, "php": {"rRBE", "cdz"},
	"lua": {"e", "l"}, "luajit": {"e", "lj"}, "Rscript": {"e", ""}, "julia": {"e", ""},
	"pwsh": {"cC", "f"}, "powershell": {"cC", "f"}, "osascript": {"e", "l"}, "expect": {"c", ""},
	"irb": {"", ""}, "groovy": {"e", ""}, "tclsh": {"", ""}, "wish": {"", ""},
}

// interpCmd asks for any interpreter and denies one that reads its
// program from a pipe.
func interpCmd(a *analyzer, c *call, s *cmdSpec) {
	fam := strings.TrimRight(c.name, "0123456789.")
	flags, ok := interpCode[fam]
	if !ok {
		flags = interpCode[c.name]
	}
	code, vals := flags[0], flags[1]
	args := c.args()
	stdin := true
	var script *field
	for _, f := range args {
		if reverseShellCode(f.s) {
			a.note(sandbox.Deny, "shell.reverse_shell", c.disp, "the inline program connects a socket to a shell")
		}
		for _, m := range shellCallRE().FindAllStringSubmatch(f.s, 8) {
			a.reparse(m[2], c, sandbox.Ask, "shell.interpreter", "the inline program runs a shell command")
		}
	}
	for i := 0; i < len(args); i++ {
		v := args[i].s
		if strings.HasPrefix(v, "-") && fromSubst(v) { // -c"$(curl …)"
			a.inlineProgram(v, c)
		}
		if v == "-" || v == "--" {
			if v == "--" && i+1 < len(args) {
				stdin, script = false, &args[i+1]
			}
			break
		}
		if strings.HasPrefix(v, "--") {
			n, prog, has := strings.Cut(strings.TrimPrefix(v, "--"), "=")
			if n == "eval" || n == "print" || n == "command" || n == "exec" {
				if !has && i+1 < len(args) {
					prog = args[i+1].s
				}
				a.inlineProgram(prog, c)
				stdin = false
				break
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' && !isDynamic(v) {
			hit := false
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(code, v[j]) >= 0 {
					hit = true
					prog := v[j+1:]
					if prog == "" && i+1 < len(args) {
						prog = args[i+1].s
					}
					a.inlineProgram(prog, c)
					break
				}
				if strings.IndexByte(vals, v[j]) >= 0 {
					if j == len(v)-1 {
						i++
					}
					break
				}
			}
			if hit {
				stdin = false
				break
			}
			continue
		}
		stdin, script = false, &args[i]
		break
	}
	switch {
	case stdin:
		a.stdinProgram(c)
	case script != nil:
		a.note(s.dec, "shell.run_script", c.disp, "runs a script with an interpreter")
		a.access(*script, accExec, c.disp)
	default:
		a.note(s.dec, s.rule, c.disp, s.reason)
	}
}

// inlineProgram decides about the program text given to an interpreter
// on its command line (python3 -c, node -e, perl -e): the output of a
// substitution there is downloaded or decoded code run unseen.
func (a *analyzer) inlineProgram(prog string, c *call) {
	switch {
	case fromSubst(prog):
		a.note(sandbox.Deny, "shell.exec_substitution", c.disp, "runs the output of a command substitution as a program")
	case isDynamic(prog):
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "runs a program that is only known at run time")
	}
}

// shellCallRE finds string literals passed to the shell-running calls of
// common interpreters (os.system, subprocess.run, system, exec, popen,
// execSync, …) in inline programs; each literal is analysed as shell.
var shellCallRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:system|popen|Popen|exec|execSync|spawnSync|check_output|check_call|getoutput|run|call|shell_exec|passthru|spawn)\s*\(\s*\[?\s*(["'])([^"'\\]{1,500})["']`)
}) // compiled on first use: package init runs in every sandbox helper too

// reverseShellCode spots inline interpreter code that wires a network
// socket to a shell: the classic reverse shell one-liners.
func reverseShellCode(code string) bool {
	l := strings.ToLower(code)
	sock := false
	for _, w := range []string{"socket", "fsockopen", "/dev/tcp", "tcpsocket", "net.connect", "net.socket", "io::socket"} {
		sock = sock || strings.Contains(l, w)
	}
	if !sock {
		return false
	}
	for _, w := range []string{"/bin/sh", "/bin/bash", "pty.spawn", "subprocess", "popen", "exec(", "spawn(", "system(", "cmd.exe", "sh -i"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// buildCmd asks for build tools; a makefile read from a pipe runs
// downloaded content.
func buildCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	for i, f := range args {
		if (f.s == "-f" || f.s == "--file" || f.s == "--makefile") && i+1 < len(args) &&
			(args[i+1].s == "-" || args[i+1].s == "/dev/stdin") || f.s == "-f-" {
			a.stdinProgram(c)
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

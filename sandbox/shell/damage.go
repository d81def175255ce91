package shell

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// Checkers for commands whose arguments hide what can only be damage
// (S5): remote commands run by ssh, editors and pagers that run shell
// commands, firewall changes, awk programs that write files or run
// commands.

// sshCmd analyses the local commands ssh options run (ProxyCommand,
// LocalCommand, KnownHostsCommand) and the remote command, which runs in
// a shell on the remote host: in a working directory that is not known
// here, with ~ the remote home. The remote command asks at least, as
// network use.
func sshCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	i := 0
	var opt func(name byte, val field)
	opt = func(name byte, val field) {
		switch name {
		case 'o':
			a.sshOption(val, c)
			if k, v, ok := strings.Cut(val.s, "="); ok && strings.EqualFold(strings.TrimSpace(k), "RemoteCommand") {
				a.remote(v, c)
			}
		case 'E':
			a.access(val, accWrite, c.disp)
		}
	}
	for ; i < len(args); i++ {
		v := args[i].s
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' || isDynamic(v) {
			break
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte("BbcDEeFIiJLlmOopQRSWw", v[j]) < 0 {
				continue
			}
			val := field{s: v[j+1:]}
			if j+1 == len(v) && i+1 < len(args) {
				i++
				val = args[i]
			}
			opt(v[j], val)
			break
		}
	}
	if i+1 < len(args) { // destination, then the remote command
		a.remote(joinFields(args[i+1:]), c)
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// remote analyses code that runs in a shell on another host.
func (a *analyzer) remote(code string, c *call) {
	saved := a.st
	a.st.cwd = []string{mUnknown}
	a.reparse(code, c, sandbox.Ask, "shell.network", "runs a command on a remote host")
	a.st = saved
}

// editorCmd asks for an editor and denies one told on its command line to
// run ex commands that reach a shell or a script language (vim -c ':!…',
// +'call system(…)', --cmd, emacs --eval): opening a file should not run
// a hidden command.
func editorCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		v := args[i].s
		var cmd string
		switch {
		case v == "-c" || v == "--cmd" || v == "--eval" || v == "-eval" || v == "-S" || v == "-l" || v == "--load":
			if i+1 < len(args) {
				i++
				cmd = args[i].s
			}
			if v == "--eval" || v == "-eval" || v == "-l" || v == "--load" {
				cmd = "!" + cmd // elisp: code whatever it says
			}
			if v == "-S" {
				a.note(sandbox.Ask, "shell.run_script", c.disp, "the editor sources a script")
				a.access(args[i], accExec, c.disp)
				continue
			}
		case strings.HasPrefix(v, "--eval="), strings.HasPrefix(v, "--load="):
			cmd = "!"
		case strings.HasPrefix(v, "+") && len(v) > 1:
			cmd = v[1:]
			if strings.Trim(cmd, "0123456789") == "" || strings.HasPrefix(cmd, "/") {
				continue // +N, +/pattern
			}
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			cmd = v[2:]
		default:
			continue
		}
		if isDynamic(cmd) || exShellEscape(cmd) {
			a.note(sandbox.Deny, "shell.shell_escape", c.disp, "the editor runs a shell command or script code given on its command line")
			continue
		}
		a.note(sandbox.Ask, "shell.editor", c.disp, "the editor runs commands given on its command line")
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// exShellEscape reports an ex command line that reaches a shell, a
// script language or a script file: a ! anywhere (:!cmd, :r !cmd,
// :w !cmd), or a word naming such a command or function.
func exShellEscape(cmd string) bool {
	l := strings.ToLower(cmd)
	if strings.ContainsAny(l, "!`") {
		return true
	}
	for _, tok := range strings.FieldsFunc(l, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		if exEscapes[tok] {
			return true
		}
	}
	return false
}

// exEscapes are the ex commands and functions (full and short forms)
// that run a shell, an external program, a script file or code in an
// embedded language.
var exEscapes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`sh shell so sour source exe exec execute call cal system systemlist
		py python py3 python3 pyx pythonx pyf pyfile py3f py3file pydo py3do pyxdo lua luafile luado
		perl perldo ruby rubydo rubyfile rub tcl tcldo tclfile mz mzscheme mzfile ter term terminal
		jobstart termopen make mak lmake grep gr lgrep grepadd lgrepadd diffpatch runtime ru libcall
		libcallnr vimscript dlopen rundo wundo`) {
		m[w] = true
	}
	return m
}()

// manCmd denies man's options that name a program to run (the pager,
// the browser, the preprocessor); man itself asks.
func manCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "PHMCLmpSseKr", "pager", "html", "preprocessor", "config-file", "manpath",
		"prompt", "systems", "sections", "extension", "locale")
	if o.has("P", "pager", "H", "html", "p", "preprocessor", "C", "config-file", "r", "prompt") {
		a.note(sandbox.Deny, "shell.shell_escape", c.disp, "man runs the program its options name (pager, browser, preprocessor)")
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// firewallCmd lets the listing forms ask and denies every change to the
// packet filter: flushing it (iptables -F) opens or cuts the machine.
func firewallCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "tw", "table", "wait")
	list := o.has("L", "S", "list", "list-rules", "h", "help", "V", "version", "list-all", "state", "get-zones") ||
		len(o.ops) > 0 && (o.ops[0].s == "list" || o.ops[0].s == "status" || o.ops[0].s == "show")
	if c.name == "iptables-save" || c.name == "ip6tables-save" || list && !o.has("F", "X", "Z", "flush", "delete-chain", "zero") {
		a.note(sandbox.Ask, "shell.read_outside", c.disp, "lists the packet filter rules")
		return
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// awkCmd asks (awk programs can run commands) and analyses what the
// program shows statically: output redirected to a file is a write,
// system("…") and print | "…" run shell commands, and network sockets
// are denied.
func awkCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, s.reason)
	args := c.args()
	prog := -1
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "-f" || v == "--file":
			if i+1 < len(args) {
				i++
				a.access(args[i], accRead, c.disp)
			}
			prog = len(args) // the program is in the file
		case v == "-v" || v == "--assign" || v == "-F" || v == "--field-separator":
			i++
		case strings.HasPrefix(v, "-") && len(v) > 1:
		case prog < 0:
			prog = i
		}
	}
	for _, f := range args {
		if strings.Contains(f.s, "/inet/") || strings.Contains(f.s, "/inet4/") || strings.Contains(f.s, "/inet6/") {
			a.note(sandbox.Deny, "shell.reverse_shell", c.disp, "awk opens a network socket")
		}
	}
	if prog < 0 || prog >= len(args) {
		return
	}
	code := args[prog].s
	if isDynamic(code) {
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "the awk program is only known at run time")
		return
	}
	for _, m := range awkOutRE().FindAllStringSubmatch(code, 16) {
		switch {
		case m[1] == "|": // print | "cmd": the string is a shell command line
			a.reparse(m[2], c, sandbox.Ask, "shell.interpreter", "the awk program pipes into a shell command")
		default:
			a.access(tildeField(m[2]), accWrite, c.disp)
		}
	}
	for _, m := range awkSystemRE().FindAllStringSubmatch(code, 16) {
		a.reparse(m[1]+m[2], c, sandbox.Ask, "shell.interpreter", "the awk program runs a shell command")
	}
}

// awkOutRE finds print and printf output redirected to a literal file
// (> "f", >> "f") or piped to a literal command (| "cmd").
var awkOutRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(>>|>|\|)\s*"([^"\\]{1,500})"`)
})

// awkSystemRE finds system("…") and "…" | getline with a literal command.
var awkSystemRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:system\s*\(\s*"([^"\\]{1,500})"|"([^"\\]{1,500})"\s*\|\s*getline)`)
})

// tildeField is a file name a program (sed, awk, git) was given, with a
// leading ~ taken as the home directory: the program does not expand it,
// but that is what the model means, and a name starting with ~/ is never
// what a workspace command needs.
func tildeField(s string) field {
	if s == "~" || strings.HasPrefix(s, "~/") {
		return field{s: mHome + "~" + s[1:]}
	}
	return field{s: s}
}

// repoOnStdin reports a command whose stdin may carry workspace content:
// a pipeline stage after one that read workspace files, a workspace file
// redirected in, or a substitution's output after such a read.
func (a *analyzer) repoOnStdin(c *call) bool {
	switch {
	case c.io.pipeIn && c.io.repoIn, c.io.substIn && a.repoFlow:
		return true
	case c.io.hasFile:
		for _, cwd := range a.st.cwd {
			if a.classify(c.io.stdinFile, cwd).kind == pkInside {
				return true
			}
		}
	}
	return false
}

// sendsStdin reports a network command that sends what it reads on stdin
// (nc, socat, ssh, curl -d @-, wget -i -, kubectl apply -f -, …); a few
// are known to ignore it.
func sendsStdin(c *call) bool {
	args := c.args()
	switch c.name {
	case "ping", "ping6", "traceroute", "tracepath", "mtr", "dig", "host", "whois", "scp":
		return false
	case "curl", "wget":
		for i, f := range args {
			v := f.s
			next := ""
			if i+1 < len(args) {
				next = args[i+1].s
			}
			switch {
			case strings.HasSuffix(v, "@-") || strings.HasSuffix(v, "=<-") || strings.HasSuffix(v, "=-") && strings.HasPrefix(v, "--"):
				return true
			case (v == "-T" || v == "--upload-file" || v == "-K" || v == "--config" || v == "-i" || v == "--input-file" ||
				v == "-d" || v == "--data" || v == "--data-binary") && (next == "-" || next == "."):
				return true
			case v == "-T-" || v == "-K-" || v == "-i-":
				return true
			}
		}
		return false
	case "ssh":
		for _, f := range args {
			if f.s == "-n" {
				return false
			}
		}
	}
	return true
}

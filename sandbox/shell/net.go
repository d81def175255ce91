package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Checkers for network tools, containers and archivers: they ask, and deny
// what uploads secrets, opens reverse shells or runs hidden commands.

// curlCmd: uploads (-d @file, -F x=@file, -T file) are checked as uploads,
// outputs as writes, file:// URLs as reads.
func curlCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "dFTKoHXAbceEmrsuUwxyYzCPQtD", "data", "data-binary", "data-raw", "data-ascii",
		"data-urlencode", "form", "form-string", "upload-file", "config", "output", "header", "request",
		"user-agent", "cookie", "cookie-jar", "referer", "cert", "key", "max-time", "range", "user", "proxy",
		"write-out", "url", "json", "output-dir", "dump-header", "trace", "trace-ascii", "stderr", "netrc-file",
		"connect-timeout", "retry", "resolve", "connect-to", "cacert", "proxy-user", "oauth2-bearer")
	for _, f := range o.flags {
		if !f.hasVal {
			continue
		}
		v := f.val.s
		switch f.name {
		case "d", "data", "data-binary", "data-ascii", "data-urlencode", "json":
			if _, file, ok := strings.Cut(v, "@"); ok && (f.name == "data-urlencode" || strings.HasPrefix(v, "@")) {
				a.upload(file, c)
			}
		case "F", "form":
			if _, rest, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(rest, "@") || strings.HasPrefix(rest, "<")) {
				file, _, _ := strings.Cut(rest[1:], ";")
				a.upload(file, c)
			}
		case "T", "upload-file":
			a.upload(v, c)
		case "o", "output", "D", "dump-header", "c", "cookie-jar", "trace", "trace-ascii", "stderr", "output-dir":
			if v != "-" {
				a.access(f.val, accWrite, c.disp)
				a.recordDownload(f.val)
			}
		case "K", "config":
			a.access(f.val, accRead, c.disp)
		}
	}
	for _, f := range append(o.ops, o.vals("url")...) {
		if rest, ok := strings.CutPrefix(strings.ToLower(f.s), "file://"); ok {
			a.access(field{s: f.s[len(f.s)-len(rest):]}, accRead, c.disp)
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// upload checks a file sent over the network ("-" is stdin).
func (a *analyzer) upload(file string, c *call) {
	if file != "-" && file != "" && file != "." {
		a.access(field{s: file}, accUpload, c.disp)
	}
}

func wgetCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "OoaPietTwQUYBDlARIX", "output-document", "output-file", "append-output",
		"directory-prefix", "input-file", "execute", "post-file", "body-file", "post-data", "body-data",
		"user-agent", "header", "method", "config", "tries", "timeout", "wait", "quota", "user", "password")
	for _, f := range o.flags {
		switch f.name {
		case "post-file", "body-file":
			a.upload(f.val.s, c)
		case "O", "output-document", "o", "output-file", "a", "append-output", "P", "directory-prefix":
			if f.hasVal && f.val.s != "-" {
				a.access(f.val, accWrite, c.disp)
				a.recordDownload(f.val)
			}
		case "i", "input-file", "config":
			a.access(f.val, accRead, c.disp)
		case "e", "execute":
			a.note(sandbox.Ask, "shell.exec_option", c.disp, "wget -e runs wgetrc commands")
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// ncCmd denies netcat's -e/-c, which attach a shell to the connection.
func ncCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "cepsiwxXIOTqVMm", "exec", "sh-exec", "lua-exec")
	if o.has("e", "c", "exec", "sh-exec", "lua-exec") {
		a.note(sandbox.Deny, "shell.reverse_shell", c.disp, "netcat runs a program on the connection (reverse or bind shell)")
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

func socatCmd(a *analyzer, c *call, s *cmdSpec) {
	for _, f := range c.args() {
		for _, addr := range strings.Split(strings.ToLower(f.s), "!!") {
			if strings.HasPrefix(addr, "exec:") || strings.HasPrefix(addr, "system:") {
				a.note(sandbox.Deny, "shell.reverse_shell", c.disp, "socat runs a program on the connection (reverse or bind shell)")
			}
			for _, p := range []string{"open:", "create:", "gopen:"} {
				if rest, ok := strings.CutPrefix(addr, p); ok {
					file, _, _ := strings.Cut(f.s[len(f.s)-len(rest):], ",")
					a.access(field{s: file}, accWrite, c.disp)
				}
			}
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

func (a *analyzer) sshOption(f field, c *call) {
	key, val, ok := strings.Cut(strings.TrimSpace(f.s), "=")
	if k, v, ok2 := strings.Cut(strings.TrimSpace(f.s), " "); ok2 && (!ok || len(k) < len(key)) {
		key, val, ok = k, v, true
	}
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand", "match":
		val = strings.TrimSpace(val)
		if ok && val != "none" && val != "no" {
			a.reparse(strings.TrimPrefix(val, "exec "), c, sandbox.Ask, "shell.ssh_command", "ssh runs a local command")
		}
	}
}

// netCopyCmd handles scp, sftp and rsync: local files sent to a remote
// host are uploads, files fetched are written; -e/--rsh commands are
// analysed.
func netCopyCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "cFiJlopPSDXefBTM", "rsh", "rsync-path", "filter", "exclude", "include",
		"exclude-from", "include-from", "files-from", "temp-dir", "partial-dir", "log-file", "password-file",
		"backup-dir", "compare-dest", "copy-dest", "link-dest", "suffix", "timeout", "port", "chmod", "chown")
	for _, f := range o.vals("e", "rsh", "S") {
		a.reparse(f.s, c, sandbox.Ask, "shell.ssh_command", "runs a remote shell program")
	}
	if c.name != "rsync" {
		for _, f := range o.vals("o") {
			a.sshOption(f, c)
		}
	}
	if o.has("rsync-path") {
		a.note(sandbox.Ask, "shell.exec_option", c.disp, "runs a command on the remote host")
	}
	ops := o.ops
	if len(ops) == 0 {
		a.note(s.dec, s.rule, c.disp, s.reason)
		return
	}
	dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	remoteDest := remotePath(dest.s)
	for _, f := range srcs {
		switch {
		case remotePath(f.s):
		case remoteDest:
			a.upload(f.s, c)
		default:
			a.access(f, accRead, c.disp)
		}
		if o.has("remove-source-files") && !remotePath(f.s) {
			a.access(f, accDelete, c.disp)
		}
	}
	if !remoteDest {
		a.access(dest, accWrite, c.disp)
		for _, fl := range o.flags {
			if strings.HasPrefix(fl.name, "delete") {
				a.access(dest, accDelete, c.disp)
				break
			}
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// remotePath reports host:path and rsync:// operands.
func remotePath(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.ContainsRune(s[:i], '/') && !strings.HasPrefix(s, ".")
}

// dockerCmd denies containers that get the host: --privileged, host
// namespaces, added capabilities, and mounts of /, /etc, a home or the
// docker socket.
func dockerCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		v := args[i].s
		name, val, hasVal := strings.Cut(v, "=")
		if !hasVal && (v == "-v" || v == "--volume" || v == "--mount" || v == "--pid" || v == "--cap-add" ||
			v == "--userns" || v == "--ipc" || v == "--uts") && i+1 < len(args) {
			i++
			val = args[i].s
		}
		bad := false
		switch name {
		case "--privileged":
			bad = true
		case "--pid", "--userns", "--ipc", "--uts":
			bad = val == "host"
		case "--cap-add":
			bad = strings.EqualFold(val, "ALL") || strings.EqualFold(val, "SYS_ADMIN")
		case "-v", "--volume", "--mount":
			src, _, _ := strings.Cut(val, ":")
			if m, ok := strings.CutPrefix(val, "type=bind,"); ok {
				src = m
			}
			src = strings.TrimPrefix(strings.TrimPrefix(src, "source="), "src=")
			bad = src == "/" || within("/etc", src) || strings.Contains(src, "docker.sock") ||
				strings.HasPrefix(src, mHome) || within("/root", src) || within("/home", src)
		}
		if bad {
			a.note(sandbox.Deny, "shell.privilege_escalation", c.disp, "the container gets control of the host")
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

// tarCmd allows listing; extracting or creating writes; options that run
// programs are analysed, and checkpoint actions that exec are denied.
func tarCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && !isDynamic(args[0].s) {
		args = append([]field{{s: "-" + args[0].s}}, args[1:]...)
	}
	o := parseOpts(args, "fCIFTXbHKNgLV", "file", "directory", "use-compress-program", "to-command",
		"info-script", "new-volume-script", "rsh-command", "files-from", "exclude-from", "checkpoint-action")
	for _, f := range o.flags {
		name := f.name
		if full := longPrefix(name, programOpts["tar"]); f.long && full != "" {
			name = full // getopt takes --use-comp for --use-compress-program
		}
		switch name {
		case "to-command", "use-compress-program", "I", "info-script", "new-volume-script", "F", "rsh-command", "rmt-command":
			a.reparse(f.val.s, c, sandbox.Ask, "shell.shell_escape", "tar runs a program")
		case "checkpoint-action":
			if cmd, ok := strings.CutPrefix(f.val.s, "exec="); ok {
				a.note(sandbox.Deny, "shell.shell_escape", c.disp, "tar --checkpoint-action=exec runs a command")
				a.reparse(cmd, c, sandbox.Ask, "shell.shell_escape", "tar runs a program")
			}
		}
	}
	archives := o.vals("f", "file")
	switch {
	case o.has("x", "extract", "get"):
		a.note(s.dec, s.rule, c.disp, "extracts files")
		dirs := o.vals("C", "directory")
		if len(dirs) == 0 {
			dirs = []field{{s: "."}}
		}
		for _, d := range dirs {
			a.access(d, accWrite, c.disp)
		}
	case o.has("t", "list"):
		a.note(sandbox.Allow, "shell.read_only", c.disp, "lists an archive")
	default:
		a.note(s.dec, s.rule, c.disp, "creates or changes an archive")
		for _, f := range archives {
			if f.s != "-" {
				a.access(f, accWrite, c.disp)
			}
		}
		archives = nil
		for _, f := range o.ops {
			a.access(f, accRead, c.disp)
		}
	}
	for _, f := range archives {
		if f.s != "-" {
			a.access(f, accRead, c.disp)
		}
	}
}

// archiveCmd: zip -TT and --unzip-command run a command (denied, a known
// shell escape); listing and writing to stdout run; the rest writes.
func archiveCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	readOnly := false
	for i, f := range args {
		switch f.s {
		case "-TT", "--unzip-command":
			a.note(sandbox.Deny, "shell.shell_escape", c.disp, "zip runs a command to test the archive")
			if i+1 < len(args) {
				a.reparse(args[i+1].s, c, sandbox.Ask, "shell.shell_escape", "zip runs a command")
			}
		case "-l", "--list", "-t", "--test", "-c", "--stdout", "-p", "-Z", "-v", "l", "t":
			readOnly = readOnly || c.name != "zip" && (f.s != "-v" || c.name == "unzip") && (len(f.s) > 1 || i == 0)
		}
	}
	if readOnly {
		a.note(sandbox.Allow, "shell.read_only", c.disp, "lists or prints an archive")
		return
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
	o := parseOpts(args, "dxSbnP")
	for _, d := range o.vals("d") {
		a.access(d, accWrite, c.disp)
	}
	for _, f := range o.ops {
		a.access(f, accWrite, c.disp)
	}
}

package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// The git checker: read-only subcommands run without asking; anything
// that writes, reaches the network or lets configuration run programs
// asks, and global configuration or hook changes are denied.

// gitReadOnly are subcommands that only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "rev-parse": true, "ls-files": true,
	"ls-tree": true, "blame": true, "annotate": true, "grep": true, "shortlog": true, "describe": true,
	"cat-file": true, "rev-list": true, "merge-base": true, "name-rev": true, "for-each-ref": true,
	"show-ref": true, "show-branch": true, "whatchanged": true, "count-objects": true,
	"check-ignore": true, "check-attr": true, "check-ref-format": true, "diff-tree": true,
	"diff-files": true, "diff-index": true, "var": true, "version": true, "help": true, "cherry": true,
	"range-diff": true, "verify-commit": true, "verify-tag": true, "fsck": true,
}

func gitCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	a.repoFlow = true // what git prints or writes to stdout comes from the repository
	saved := a.st
	defer func() { a.st = saved }()
	gitDir := ""
	i := 0
scan:
	for ; i < len(args); i++ {
		v := args[i].s
		name, val, hasVal := strings.Cut(v, "=")
		switch {
		case v == "-c" || strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--"):
			if v == "-c" {
				if i++; i >= len(args) {
					break scan
				}
				v = args[i].s
			} else {
				v = v[2:]
			}
			a.gitConfig(v, c)
		case name == "--config-env":
			if !hasVal {
				i++
			}
			a.note(sandbox.Ask, "shell.git_config", c.disp, "git takes configuration from the environment")
		case v == "-C":
			if i++; i < len(args) {
				a.access(args[i], accRead, c.disp)
				a.st.cwd = a.chdir(args[i])
			}
		case name == "--git-dir" || name == "--work-tree":
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i].s
			}
			a.access(field{s: val}, accRead, c.disp)
			if name == "--git-dir" {
				gitDir = val
			}
		case name == "--exec-path" && hasVal:
			a.note(sandbox.Ask, "shell.git_exec_path", c.disp, "--exec-path makes git run programs from another directory")
		case v == "-p" || v == "--paginate":
			a.note(sandbox.Ask, "shell.git_pager", c.disp, "git runs a pager")
		case v == "--help" && i+1 < len(args):
			a.gitHelpAsk(c) // git --help log is git help log
			return
		case v == "--version" || v == "--help" || v == "-h" || v == "--exec-path" || strings.HasSuffix(v, "-path"):
			a.note(sandbox.Allow, "shell.read_only", c.disp, "prints git information")
			return
		case strings.HasPrefix(v, "-"):
			switch v {
			case "-P", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
				"--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--no-lazy-fetch":
			default:
				a.note(sandbox.Ask, "shell.git_option", c.disp, "a git option the policy does not know")
			}
		default:
			break scan
		}
	}
	if i >= len(args) {
		a.note(sandbox.Allow, "shell.read_only", c.disp, "prints git usage")
		return
	}
	sub, rest := args[i].s, args[i+1:]
	if isDynamic(sub) {
		a.note(sandbox.Ask, "shell.dynamic_command", c.disp, "the git subcommand is computed at run time")
		return
	}
	switch {
	case gitHelpOpens(sub, rest):
		a.gitHelpAsk(c)
	case gitReadOnly[sub], sub == "branch" && gitBranchReads(rest), sub == "tag" && gitTagReads(rest),
		(sub == "stash" || sub == "worktree" || sub == "notes" || sub == "reflog" || sub == "remote" ||
			sub == "submodule") && gitSubReads(sub, rest):
		a.note(s.dec, "shell.git_read", c.disp, "a read-only git command")
		a.access(field{s: "."}, accRead, c.disp) // the repository is the working directory
		a.gitReadArgs(sub, rest, c)
		a.gitRepoCheck(c, gitDir) // S8: programs the repository's configuration names
	case sub == "config":
		a.gitConfigCmd(rest, c)
	case sub == "clone" || sub == "fetch" || sub == "pull" || sub == "push" || sub == "ls-remote" || sub == "archive":
		for k, f := range rest {
			n, v, has := strings.Cut(f.s, "=")
			switch {
			case n == "--upload-pack" || n == "--receive-pack" || n == "--exec" || n == "-u":
				if !has && k+1 < len(rest) {
					v = rest[k+1].s
				}
				a.reparse(v, c, sandbox.Ask, "shell.git_exec", "git runs a program for the transfer")
			case n == "--config" || n == "-c":
				if !has && k+1 < len(rest) {
					v = rest[k+1].s
				}
				a.gitConfig(v, c)
			case strings.HasPrefix(strings.ToLower(f.s), "ext::"):
				a.note(sandbox.Deny, "shell.git_ext_url", c.disp, "an ext:: URL makes git run a command")
			}
		}
		a.note(sandbox.Ask, "shell.network", c.disp, "git talks to a remote")
	case sub == "maintenance" && len(rest) > 0 && (rest[0].s == "start" || rest[0].s == "register"):
		a.note(sandbox.Deny, "shell.persistence", c.disp, "git maintenance installs scheduled jobs")
	case sub == "hook":
		a.note(sandbox.Ask, "shell.git_hook", c.disp, "runs a git hook")
	default:
		a.gitExecArgs(sub, rest, c)
		a.note(sandbox.Ask, "shell.git_write", c.disp, "a git command that changes the repository or runs programs")
	}
}

// gitExecArgs analyses the shell commands git subcommands run: rebase
// --exec, difftool --extcmd, submodule foreach, bisect run, filter-branch
// filters.
func (a *analyzer) gitExecArgs(sub string, rest []field, c *call) {
	for k, f := range rest {
		name, val, has := strings.Cut(f.s, "=")
		switch {
		case sub == "apply" && name == "--unsafe-paths":
			a.note(sandbox.Deny, "shell.git_unsafe_paths", c.disp, "git apply --unsafe-paths writes files outside the repository")
		case (sub == "apply" && name == "--directory") || ((sub == "format-patch" || sub == "archive") &&
			(name == "-o" || name == "--output" || name == "--output-directory")):
			if !has && k+1 < len(rest) {
				val = rest[k+1].s
			}
			a.access(tildeField(val), accWrite, c.disp)
		case name == "--exec" || name == "--extcmd" || strings.HasSuffix(name, "-filter") && strings.HasPrefix(name, "--") ||
			name == "-x" && (sub == "rebase" || sub == "difftool"):
			if !has && k+1 < len(rest) {
				val = rest[k+1].s
			}
			a.reparse(val, c, sandbox.Ask, "shell.git_exec", "git runs a shell command")
		case sub == "submodule" && f.s == "foreach" && k+1 < len(rest):
			a.reparse(joinFields(rest[k+1:]), c, sandbox.Ask, "shell.git_exec", "git runs a shell command in each submodule")
			return
		case sub == "bisect" && f.s == "run" && k+1 < len(rest):
			a.exec(c.sub(rest[k+1:]))
			return
		}
	}
}

// gitConfig checks a -c key=value: every -c asks, keys that make git run a
// program are analysed, and core.hooksPath or core.fsmonitor is denied.
func (a *analyzer) gitConfig(kv string, c *call) {
	a.note(sandbox.Ask, "shell.git_config", c.disp, "git -c can make git run programs")
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	switch {
	case isDynamic(key):
	case key == "core.hookspath" || key == "core.fsmonitor" || strings.HasPrefix(key, "protocol.") && strings.Contains(key, "ext"):
		a.note(sandbox.Deny, "shell.git_config_exec", c.disp, "the git configuration runs hooks or a program")
	case gitCodeKey(key):
		a.reparse(strings.TrimPrefix(val, "!"), c, sandbox.Ask, "shell.git_config", "the git configuration runs a program")
	}
}

func gitCodeKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.gitproxy", "diff.external",
		"sequence.editor", "gpg.program", "gpg.ssh.program", "gpg.x509.program", "credential.helper",
		"uploadpack.packobjectshook", "core.alternaterefscommand", "gpg.ssh.defaultkeycommand":
		return true
	}
	for _, p := range []string{"alias.", "pager.", "filter.", "credential."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	for _, p := range []string{".textconv", ".command", ".driver", ".receivepack", ".uploadpack", ".helper", ".cmd", ".tool"} {
		if strings.HasSuffix(key, p) {
			return true
		}
	}
	return false
}

// gitReadArgs asks for options of read-only subcommands that write files
// or run programs.
func (a *analyzer) gitReadArgs(sub string, rest []field, c *call) {
	noIndex := false
	for k, f := range rest {
		name, val, has := strings.Cut(f.s, "=")
		if sub == "grep" && gitGrepPager(name) {
			name = "-O"
		}
		switch name {
		case "--output", "-o":
			if name == "--output" || sub == "grep" {
				a.note(sandbox.Ask, "shell.git_output", c.disp, "writes output to a file")
			}
			if name == "--output" {
				if !has && k+1 < len(rest) {
					val = rest[k+1].s
				}
				a.access(tildeField(val), accWrite, c.disp)
			}
		case "--ext-diff", "--textconv", "-O", "--open-files-in-pager", "--pager":
			a.note(sandbox.Ask, "shell.git_pager", c.disp, "makes git run a configured program")
		case "--no-index":
			noIndex = true
		case "--contents":
			if k+1 < len(rest) {
				a.access(rest[k+1], accRead, c.disp)
			}
		}
	}
	if noIndex {
		for _, f := range rest {
			if !strings.HasPrefix(f.s, "-") {
				a.access(f, accRead, c.disp)
			}
		}
	}
}

// gitBranchReads reports git branch that only lists branches.
func gitBranchReads(rest []field) bool {
	list := false
	ops := 0
	for k := 0; k < len(rest); k++ {
		v := rest[k].s
		switch {
		case v == "-l" || v == "--list" || v == "--show-current":
			list = true
		case v == "--contains" || v == "--no-contains" || v == "--points-at" || v == "--sort" || v == "--format":
			k++
		case v == "--merged" || v == "--no-merged":
		case v == "-a" || v == "-r" || v == "-v" || v == "-vv" || v == "--all" || v == "--remotes" ||
			v == "--verbose" || v == "--column" || v == "--no-column" || v == "-i" || v == "--ignore-case" ||
			strings.HasPrefix(v, "--color") || strings.HasPrefix(v, "--abbrev") || strings.HasPrefix(v, "--sort=") ||
			strings.HasPrefix(v, "--format=") || strings.HasPrefix(v, "--contains=") || strings.HasPrefix(v, "--merged="):
		case strings.HasPrefix(v, "-"):
			return false
		default:
			ops++
		}
	}
	return ops == 0 || list
}

func gitTagReads(rest []field) bool {
	list := false
	for _, f := range rest {
		switch v := f.s; {
		case v == "-l" || v == "--list":
			list = true
		case v == "-d" || v == "--delete" || v == "-a" || v == "-s" || v == "-f" || v == "-m" || v == "-F" ||
			v == "-u" || v == "--annotate" || v == "--sign" || v == "--force" || v == "-e" || v == "--edit":
			return false
		case !strings.HasPrefix(v, "-"):
			if !list {
				return false
			}
		}
	}
	return true
}

func gitSubReads(sub string, rest []field) bool {
	first := ""
	for _, f := range rest {
		if !strings.HasPrefix(f.s, "-") {
			first = f.s
			break
		}
	}
	switch sub {
	case "stash":
		return first == "list" || first == "show"
	case "worktree":
		return first == "list"
	case "notes":
		return first == "" || first == "list" || first == "show"
	case "reflog":
		return first == "" || first == "show" || first == "exists"
	case "remote":
		return first == "" || first == "get-url"
	case "submodule":
		return first == "status" || first == "summary"
	}
	return false
}

// gitConfigCmd: reading local configuration runs; setting a key that runs
// programs, or any global or system setting, is denied.
func (a *analyzer) gitConfigCmd(rest []field, c *call) {
	global, read := false, false
	var ops []field
	for k := 0; k < len(rest); k++ {
		v := rest[k].s
		switch {
		case v == "--global" || v == "--system" || v == "--file" || v == "-f" || strings.HasPrefix(v, "--file="):
			global = true
			if v == "--file" || v == "-f" {
				k++
			}
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--list" || v == "-l" ||
			v == "--get-urlmatch" || v == "--show-origin" && len(rest) == 1:
			read = true
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, rest[k])
		}
	}
	if len(ops) > 0 && (ops[0].s == "get" || ops[0].s == "list") || len(ops) == 1 && !read {
		read = true
	}
	switch {
	case read && global:
		a.note(sandbox.Ask, "shell.read_outside", c.disp, "reads the global git configuration")
	case read:
		a.note(sandbox.Allow, "shell.git_read", c.disp, "reads the git configuration")
	case global:
		a.note(sandbox.Deny, "shell.persistence", c.disp, "changes the global git configuration, which affects every repository")
	default:
		key := ""
		if len(ops) > 0 {
			key = ops[0].s
			if (key == "set" || key == "unset") && len(ops) > 1 {
				key = ops[1].s
			}
		}
		key = strings.ToLower(key)
		if key == "core.hookspath" || key == "core.fsmonitor" || gitCodeKey(key) || isDynamic(key) {
			a.note(sandbox.Deny, "shell.git_config_exec", c.disp, "configures the repository to run a program")
		}
		a.note(sandbox.Ask, "shell.git_write", c.disp, "changes the repository's git configuration")
	}
}

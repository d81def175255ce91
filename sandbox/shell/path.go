package shell

import (
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// access is what a command does with a path operand.
type access uint8

const (
	accRead   access = iota
	accWrite         // create, overwrite, append, move away
	accDelete        // rm, shred, find -delete
	accPerm          // chmod, chown
	accExec          // run it as a script
	accUpload        // send it over the network
)

type pathKind uint8

const (
	pkInside  pathKind = iota
	pkOutside          // outside the workspace
	pkUnknown          // computed at run time
	pkPipe             // a process substitution's pipe
)

// pathInfo is where a path operand leads.
type pathInfo struct {
	kind    pathKind
	rel     string // pkInside: the resolved workspace-relative path
	abs     string // pkOutside: the cleaned absolute path, or "~/…" under a home
	home    bool   // under a home directory (~, $HOME, /root, /home/*)
	hrel    string // relative to that home; "." for the home itself
	link    bool   // inside lexically, but a symlink leads outside
	partial bool   // the path ends in a part computed at run time
}

// access checks a path operand under every possible working directory and
// notes the decision for cmd. A glob is also checked against the files it
// matches on disk now, as bash would expand it.
func (a *analyzer) access(f field, acc access, cmd string) {
	for _, cwd := range a.st.cwd {
		a.access1(a.classify(f, cwd), acc, cmd)
		if f.glob {
			for _, m := range a.globMatches(f, cwd) {
				a.access1(a.classify(field{s: m}, cwd), acc, cmd)
			}
		}
	}
}

func (a *analyzer) access1(pi pathInfo, acc access, cmd string) {
	if acc == accExec && a.downloaded(pi) {
		a.note(sandbox.Deny, "shell.exec_downloaded", cmd, "runs a file that the command downloaded")
	}
	if acc == accExec {
		if src, ok := a.scripts[pathKey(pi)]; ok {
			a.reparse(src, &call{disp: cmd}, sandbox.Ask, "shell.run_script", "runs a script the command wrote")
		}
	}
	a.throughLinks(pi, acc, cmd)
	dec, rule, reason := decidePath(pi, acc)
	if dec != sandbox.Allow {
		a.note(dec, rule, cmd, reason)
	}
	if rule == "shell.control_file" && a.probing == 0 && !slices.Contains(a.control, pi.rel) && len(a.control) < 16 {
		a.control = append(a.control, pi.rel)
	}
	if a.tainted != nil && (acc == accRead || acc == accUpload) && !isSecret(pi) && a.secretAt(pi) {
		if acc == accUpload {
			a.note(sandbox.Deny, "shell.exfiltration", cmd, "sends a file the command filled with secrets over the network")
		} else {
			a.note(sandbox.Ask, "shell.read_secret", cmd, "reads a file the command filled with secrets")
		}
	}
	if acc == accRead && a.secretAt(pi) {
		a.secretFlow = true
	}
	if acc == accRead && pi.kind == pkInside {
		a.repoFlow = true
	}
}

// classify resolves an expanded word against a working directory (an
// absolute path, a home-marked path or mUnknown).
func (a *analyzer) classify(f field, cwd string) pathInfo {
	for i := range a.pcache[:a.pn] {
		if e := &a.pcache[i]; e.f == f && e.cwd == cwd {
			return e.pi
		}
	}
	pi := a.classify1(f, cwd)
	a.pcache[a.pi%len(a.pcache)] = classified{f: f, cwd: cwd, pi: pi}
	a.pi++
	a.pn = min(a.pi, len(a.pcache))
	return pi
}

// classified is a cached classification: the disk is not asked twice
// about the same path in one command line.
type classified struct {
	f   field
	cwd string
	pi  pathInfo
}

func (a *analyzer) classify1(f field, cwd string) pathInfo {
	s := f.s
	if strings.HasPrefix(s, mProc) {
		return pathInfo{kind: pkPipe}
	}
	s = strings.ReplaceAll(s, mChild, "x")
	partial := false
	if i := indexByteIn(s, mUnknown[0], mProc[0]); i >= 0 { // mChild is gone: any marker but mHome
		s, partial = s[:i], true
	}
	if f.glob {
		s = deglobTop(dotGlob(s))
	}
	switch {
	case s == "":
		return pathInfo{kind: pkUnknown}
	case strings.HasPrefix(s, mHome):
		return homeInfo(s[1:], partial)
	case !strings.HasPrefix(s, "/"):
		switch {
		case cwd == mUnknown:
			return pathInfo{kind: pkUnknown}
		case strings.HasPrefix(cwd, mHome):
			return homeInfo(cwd[1:]+"/"+s, partial)
		}
		s = cwd + "/" + s
	}
	return a.absInfo(s, partial)
}

// homeInfo describes "~/rest" or "~user/rest".
func homeInfo(t string, partial bool) pathInfo {
	user, rest, _ := strings.Cut(t, "/")
	hrel := path.Clean(rest)
	if hrel == ".." || strings.HasPrefix(hrel, "../") {
		return pathInfo{kind: pkOutside, abs: "/", partial: partial}
	}
	if partial && !strings.HasSuffix(rest, "/") && rest != "" {
		hrel = path.Dir(hrel)
	}
	return pathInfo{kind: pkOutside, home: true, hrel: hrel, abs: user + "/" + hrel, partial: partial}
}

func (a *analyzer) absInfo(s string, partial bool) pathInfo {
	trailing := strings.HasSuffix(s, "/")
	raw := s
	s = path.Clean(s)
	if partial && !trailing {
		s = path.Dir(s)
	}
	if a.root != "" && within(a.root, s) {
		if partial {
			return pathInfo{kind: pkUnknown}
		}
		if sandbox.DotDotAfterSymlink("/", raw) { // T4: the kernel goes up from the link's target
			return pathInfo{kind: pkOutside, abs: s, link: true}
		}
		rel, err := sandbox.ResolveWithin(a.root, s)
		if err == nil {
			return pathInfo{kind: pkInside, rel: rel}
		}
		if pe, ok := errors.AsType[*sandbox.PolicyError](err); ok && pe.Rule == sandbox.RuleOutsideRoot {
			return pathInfo{kind: pkOutside, abs: s, link: true}
		}
		return pathInfo{kind: pkUnknown}
	}
	pi := pathInfo{kind: pkOutside, abs: s, partial: partial}
	switch {
	case a.home != "" && within(a.home, s):
		pi.home, pi.hrel = true, relTo(a.home, s)
	case within("/root", s):
		pi.home, pi.hrel = true, relTo("/root", s)
	case strings.HasPrefix(s, "/home/"):
		user, rest, _ := strings.Cut(s[len("/home/"):], "/")
		pi.home, pi.hrel = user != "", path.Clean("./"+rest)
	}
	return pi
}

func within(base, p string) bool {
	return base == "/" || p == base || len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base)
}

func relTo(base, p string) string {
	if p == base {
		return "."
	}
	return strings.TrimPrefix(p[len(base):], "/")
}

// decidePath is the decision for one access to one place.
func decidePath(pi pathInfo, acc access) (sandbox.Decision, string, string) {
	switch pi.kind {
	case pkPipe:
		if acc == accExec {
			return sandbox.Deny, "shell.exec_substitution", "runs the output of a process substitution as code"
		}
		return sandbox.Allow, "", ""
	case pkUnknown:
		return sandbox.Ask, "shell.dynamic_path", "a path that is only known at run time"
	case pkInside:
		return decideInside(pi, acc)
	}
	abs := pi.abs
	switch {
	case strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/"):
		return sandbox.Deny, "shell.dev_tcp", "opens a network connection through /dev/tcp or /dev/udp (reverse shell)"
	case devSafe(abs):
		if acc == accDelete || acc == accPerm {
			return sandbox.Deny, "shell.device", "changes a device file"
		}
		return sandbox.Allow, "", ""
	}
	device := within("/dev", abs)
	switch acc {
	case accRead:
		switch {
		case isSecret(pi):
			return sandbox.Ask, "shell.read_secret", "reads a file that looks like a secret"
		case device:
			return sandbox.Ask, "shell.read_device", "reads a device"
		}
		return sandbox.Ask, "shell.read_outside", "reads outside the workspace"
	case accWrite:
		switch {
		case device:
			return sandbox.Deny, "shell.write_device", "writes to a device"
		case pi.link:
			return sandbox.Ask, "shell.write_outside", "writes through a symlink that leads outside the workspace"
		case isPersistent(pi) || isSecret(pi):
			return sandbox.Deny, "shell.persistence", "writes a shell startup file, credential, hook, scheduler or system configuration"
		case systemPath(abs):
			return sandbox.Deny, "shell.write_system", "writes a system directory"
		case pi.home:
			return sandbox.Deny, "shell.write_home", "writes or moves files in a home directory, outside the workspace"
		}
		return sandbox.Ask, "shell.write_outside", "writes outside the workspace"
	case accDelete:
		return sandbox.Deny, "shell.rm_outside_root", "deletes or destroys files outside the workspace"
	case accPerm:
		return sandbox.Deny, "shell.chmod_outside_root", "changes permissions or ownership outside the workspace"
	case accExec:
		return sandbox.Ask, "shell.run_script", "runs a script from outside the workspace"
	case accUpload:
		if isSecret(pi) || pi.home || systemPath(abs) && within("/etc", abs) {
			return sandbox.Deny, "shell.exfiltration", "sends a secret or a file from a home directory over the network"
		}
		return sandbox.Ask, "shell.upload", "sends a file over the network"
	}
	return sandbox.Ask, "shell.outside", "touches a path outside the workspace"
}

func decideInside(pi pathInfo, acc access) (sandbox.Decision, string, string) {
	switch acc {
	case accRead:
		if isSecret(pi) {
			return sandbox.Ask, "shell.read_secret", "reads a file that looks like a secret"
		}
		return sandbox.Allow, "", ""
	case accWrite, accDelete, accPerm:
		if acc == accWrite && isPersistent(pi) {
			return sandbox.Deny, "shell.persistence", "writes a git hook or the repository's git configuration"
		}
		switch control, own := sandbox.IsControlPath(pi.rel); {
		case own:
			return sandbox.Deny, "shell.protected_path", "changes agentls' own control files (.agentls), which the model may never change"
		case control:
			return sandbox.Ask, "shell.control_file", "changes an editor, shell or git control file, which runs code outside the sandbox"
		}
		switch acc {
		case accDelete:
			return sandbox.Ask, "shell.workspace_delete", "deletes inside the workspace"
		case accPerm:
			return sandbox.Ask, "shell.workspace_write", "changes permissions inside the workspace"
		}
		return sandbox.Ask, "shell.workspace_write", "writes inside the workspace"
	case accExec:
		return sandbox.Ask, "shell.run_script", "runs a script from the workspace"
	case accUpload:
		if isSecret(pi) {
			return sandbox.Deny, "shell.exfiltration", "sends a secret over the network"
		}
		return sandbox.Ask, "shell.upload", "sends a workspace file over the network"
	}
	return sandbox.Ask, "shell.workspace_write", "changes the workspace"
}

func devSafe(abs string) bool {
	switch abs {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/self/fd/")
}

// systemPath reports the root and the system directories below it.
func systemPath(abs string) bool {
	if abs == "/" {
		return true
	}
	top, _, _ := strings.Cut(abs[1:], "/")
	switch top {
	case "bin", "sbin", "usr", "lib", "lib32", "lib64", "libx32", "etc", "boot", "sys",
		"proc", "dev", "snap", "System", "Library", "Applications", "private":
		return true
	case "var":
		return !within("/var/tmp", abs)
	}
	return false
}

// isPersistent reports places where a write makes code run later: shell
// startup files and other dotfiles in a home, launch agents, the git
// hooks and config of the workspace, and system configuration.
func isPersistent(pi pathInfo) bool {
	if pi.kind == pkInside { // case-insensitive: .GIT/config is .git/config on such a file system
		rel := strings.ToLower(pi.rel)
		return rel == ".git/config" || within(".git/hooks", rel)
	}
	if pi.home {
		first, _, _ := strings.Cut(pi.hrel, "/")
		return strings.HasPrefix(first, ".") && first != ".cache" && first != "." ||
			within("Library/LaunchAgents", pi.hrel)
	}
	return within("/etc", pi.abs) || within("/var/spool", pi.abs) ||
		strings.Contains(pi.abs, "/systemd/") || strings.Contains(pi.abs, "/LaunchDaemons")
}

// isSecret reports files that look like credentials or keys: the one
// list of [sandbox.IsSecretPath], which the file tools use too.
func isSecret(pi pathInfo) bool {
	switch pi.kind {
	case pkInside:
		return sandbox.IsSecretPath(pi.rel)
	case pkOutside:
		return sandbox.IsSecretPath(pi.abs)
	}
	return false
}

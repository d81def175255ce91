package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Checkers for developer tools: git, go, gofmt and cargo. Read-only git
// subcommands and go test|vet|build run without asking; anything that
// writes, reaches the network or lets configuration run programs asks, and
// global configuration changes are denied.

// goCmd allows building, testing and inspecting the workspace.
func goCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	saved := a.st
	defer func() { a.st = saved }()
	if len(args) >= 2 && args[0].s == "-C" {
		a.access(args[1], accRead, c.disp)
		a.st.cwd = a.chdir(args[1])
		args = args[2:]
	}
	if len(args) == 0 {
		a.note(sandbox.Allow, "shell.read_only", c.disp, "prints go usage")
		return
	}
	sub, rest := args[0].s, args[1:]
	flags, ops := goFlags(rest)
	switch sub {
	case "test", "vet", "build", "list", "version", "doc", "help":
		a.note(s.dec, "shell.go_build", c.disp, "builds, tests or inspects the workspace")
		if sub != "version" && sub != "help" && sub != "doc" {
			a.access(field{s: "."}, accRead, c.disp)
		}
		stamps := sub == "build" // VCS stamping runs git status in the repository
		for _, f := range flags {
			switch f.name {
			case "buildvcs":
				stamps = stamps && f.val.s != "false"
			case "exec", "toolexec", "vettool", "overlay":
				a.note(sandbox.Ask, "shell.go_exec", c.disp, "makes go run another program")
			case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir":
				a.buildOutput(f.val, c)
			case "ldflags", "gcflags", "asmflags", "gccgoflags":
				if strings.Contains(f.val.s, "extld") || strings.Contains(f.val.s, "toolexec") {
					a.note(sandbox.Ask, "shell.go_exec", c.disp, "sets the external linker")
				}
				if f.name == "gccgoflags" && !safeCompilerFlags(f.val.s) {
					a.note(sandbox.Ask, "shell.go_exec", c.disp, "-gccgoflags can make gccgo run another program")
				}
			}
		}
		for _, f := range ops {
			if strings.HasPrefix(f.s, "/") || strings.HasPrefix(f.s, mHome) || strings.HasPrefix(f.s, "..") || isDynamic(f.s) {
				a.access(f, accRead, c.disp)
			}
		}
		if stamps {
			a.gitRepoCheck(c, "")
		}
	case "env":
		for _, f := range flags {
			if f.name == "w" || f.name == "u" {
				a.note(sandbox.Deny, "shell.persistence", c.disp, "go env -w changes the global go configuration")
				return
			}
		}
		a.note(s.dec, "shell.read_only", c.disp, "prints the go environment")
	case "mod":
		if len(rest) > 0 && (rest[0].s == "graph" || rest[0].s == "why" || rest[0].s == "verify") {
			a.note(s.dec, "shell.read_only", c.disp, "inspects modules")
			return
		}
		a.note(sandbox.Ask, "shell.go_mod", c.disp, "changes go.mod or downloads modules")
	case "run", "generate", "tool":
		a.note(sandbox.Ask, "shell.go_run", c.disp, "runs a program")
	case "get", "install":
		a.note(sandbox.Ask, "shell.network", c.disp, "downloads and installs modules")
	default:
		a.note(sandbox.Ask, "shell.go_other", c.disp, "a go command that changes files or settings")
	}
}

// goValueFlags are go command flags that take a value.
var goValueFlags = map[string]bool{
	"o": true, "run": true, "bench": true, "count": true, "cpu": true, "parallel": true, "timeout": true,
	"tags": true, "ldflags": true, "gcflags": true, "asmflags": true, "gccgoflags": true, "mod": true,
	"modfile": true, "overlay": true, "pgo": true, "p": true, "exec": true, "toolexec": true, "vettool": true,
	"coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true,
	"trace": true, "outputdir": true, "covermode": true, "coverpkg": true, "fuzz": true, "fuzztime": true,
	"fuzzminimizetime": true, "benchtime": true, "skip": true, "shuffle": true, "buildmode": true,
	"compiler": true, "installsuffix": true, "pkgdir": true, "f": true, "C": true, "blockprofilerate": true,
	"memprofilerate": true, "mutexprofilefraction": true,
}

// goFlags parses go's single-dash flags: -name, -name=value, -name value.
func goFlags(args []field) (flags []optVal, ops []field) {
	for i := 0; i < len(args); i++ {
		v := args[i].s
		if v == "--" {
			return flags, append(ops, args[i+1:]...)
		}
		if len(v) < 2 || v[0] != '-' {
			ops = append(ops, args[i])
			continue
		}
		name, val, has := strings.Cut(strings.TrimLeft(v, "-"), "=")
		f := optVal{name: name, val: field{s: val}, hasVal: has}
		if !has && goValueFlags[name] && i+1 < len(args) {
			i++
			f.val, f.hasVal = args[i], true
		}
		flags = append(flags, f)
	}
	return flags, ops
}

// buildOutput checks a file a build writes: inside the workspace it is
// part of the build; elsewhere, and over a control file (E15) or
// agentls' own, it is an ordinary write.
func (a *analyzer) buildOutput(f field, c *call) {
	for _, cwd := range a.st.cwd {
		pi := a.classify(f, cwd)
		control, own := sandbox.IsControlPath(pi.rel)
		if pi.kind != pkInside || isPersistent(pi) || control || own {
			a.access(f, accWrite, c.disp)
			return
		}
	}
}

func gofmtCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "r")
	acc := accRead
	if o.has("w") {
		acc = accWrite
		a.note(sandbox.Ask, "shell.workspace_write", c.disp, "gofmt -w rewrites files")
	}
	if o.has("r") {
		a.note(sandbox.Ask, "shell.workspace_write", c.disp, "gofmt -r rewrites code")
	}
	a.note(s.dec, s.rule, c.disp, "formats Go code")
	for _, f := range o.ops {
		a.access(f, acc, c.disp)
	}
}

// cargoCmd allows building, testing, linting and formatting the workspace
// (cargo fmt rewrites files, which are staged and checked like any
// build's, S11).
func cargoCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	if len(args) > 0 && strings.HasPrefix(args[0].s, "+") && plainName(args[0].s[1:]) {
		args = args[1:] // +toolchain: a rustup toolchain by name
	}
	o := parseOpts(args, "pjC", "config", "manifest-path", "package", "jobs", "target-dir", "artifact-dir", "out-dir")
	if o.has("config", "Z", "C") {
		a.note(sandbox.Ask, "shell.exec_option", c.disp, "cargo --config, -Z and -C can make cargo run programs or read another project")
	}
	sub := ""
	if len(o.ops) > 0 {
		sub = o.ops[0].s
	}
	switch sub {
	case "check", "test", "build", "clippy", "doc", "tree", "metadata", "version", "bench", "verify-project", "":
		a.note(s.dec, "shell.go_build", c.disp, "builds, tests or inspects the workspace")
	case "fmt":
		if o.has("check") {
			a.note(s.dec, "shell.read_only", c.disp, "checks formatting")
		} else {
			a.projectOK(c)
		}
	default:
		a.note(sandbox.Ask, "shell.build", c.disp, "a cargo command that runs programs, changes files or uses the network")
	}
	if sub != "" && sub != "version" {
		a.projectDir(c)
	}
	for _, f := range o.vals("manifest-path") {
		a.projectPath(f, c)
	}
	for _, f := range o.vals("target-dir", "artifact-dir", "out-dir") {
		a.buildOutput(f, c)
	}
}

package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// The project's own build, test and lint commands (S11): make, npm test
// and npm run, npx tsc, node --test, pytest, python -m pytest|unittest and
// cargo fmt run without asking, since every command now runs staged with
// the network off and each change it makes is checked before it lands.
// What escapes that class still asks: options that run other programs or
// load code from outside the workspace (make --eval, npm --script-shell,
// node --require, pytest -p), a project directory, makefile, test or
// configuration file outside the workspace, output written outside it,
// code in variable values, environment overrides (checkEnv), and targets
// or scripts that by convention install, publish, deploy or serve.

// ruleProject is the rule of a project build, test or lint command.
const ruleProject = "shell.project_build"

const reasonProject = "builds, tests or lints the workspace (staged)"

// registerProject overrides the generic build rule for the tools above;
// their spec stays the ask of shell.build, for calls no checker decides.
func registerProject() {
	build := func(check func(*analyzer, *call, *cmdSpec)) cmdSpec {
		return cmdSpec{dec: sandbox.Ask, rule: "shell.build", reason: "runs a build or project scripts", check: check}
	}
	register("make gmake", build(makeCmd))
	register("npm", build(npmCmd))
	register("npx", build(npxCmd))
	register("tsc", build(tscCmd))
	register("pytest py.test", build(pytestCmd))
	interp := cmdSpec{dec: sandbox.Ask, rule: "shell.interpreter", reason: "runs an interpreter, which can do anything"}
	interp.check = nodeCmd
	register("node nodejs", interp)
	interp.check = pythonCmd
	register("python python2 python3 pypy pypy3", interp)
}

// argKind is what an option of a project tool takes.
type argKind uint8

const (
	kUnknown  argKind = iota // not an option the analyser knows: asks
	kBool                    // takes no value
	kValue                   // takes a value that names no file
	kOptNum                  // takes a number, attached or as the next argument if it is one (make -j)
	kAttached                // takes a value only when attached (make -Oline, --debug=a)
	kCode                    // a file or directory whose code or configuration runs: inside the workspace only
	kDir                     // the directory the tool works in (make -C): inside the workspace only
	kOut                     // a file or directory written: inside the workspace it is part of the build
	kDel                     // a directory the tool deletes before use (pytest --basetemp)
	kAsk                     // runs code given on the command line or another program: asks
	kSpecial                 // takes a value the tool's checker decides about
)

// takesNext reports kinds whose value may be the next argument.
func (k argKind) takesNext() bool {
	return k == kValue || k == kCode || k == kDir || k == kOut || k == kDel || k == kSpecial
}

// flagSet describes a tool's options.
type flagSet struct {
	long       map[string]argKind // names without their dashes
	short      map[byte]argKind   // single letters that cluster (-kj4); nil when the tool has none
	singleLong bool               // a single dash may introduce a name of long (tsc -outDir, npm -ws)
	fold       bool               // names are case-insensitive (tsc)
	underscore bool               // _ in a name means - (node)
}

// newFlagSet builds a flagSet from "kind: names" lines; a name of one
// letter after "short " goes to the short map.
func newFlagSet(spec map[argKind]string) *flagSet {
	fs := &flagSet{long: map[string]argKind{}}
	for k, names := range spec {
		for _, n := range strings.Fields(names) {
			if s, ok := strings.CutPrefix(n, "short:"); ok {
				if fs.short == nil {
					fs.short = map[byte]argKind{}
				}
				fs.short[s[0]] = k
				continue
			}
			fs.long[n] = k
		}
	}
	return fs
}

// flagHit is one option found on a command line.
type flagHit struct {
	flag string // as spelled, without its value: "--eval", "-E"
	name string // the key in flagSet: without dashes, folded
	kind argKind
	val  field
	has  bool
}

// scanArgs splits args into options and operands; after "--" everything
// is returned in rest.
func scanArgs(args []field, fs *flagSet) (hits []flagHit, ops, rest []field) {
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--":
			return hits, ops, args[i+1:]
		case len(v) < 2 || v[0] != '-':
			ops = append(ops, args[i])
			continue
		}
		var h []flagHit
		h, i = scanOne(args, i, fs)
		hits = append(hits, h...)
	}
	return hits, ops, nil
}

// scanOne parses the option at args[i], returning it and the index of the
// last argument it used.
func scanOne(args []field, i int, fs *flagSet) ([]flagHit, int) {
	v := args[i].s
	name, double := v[1:], strings.HasPrefix(v, "--")
	if double {
		name = v[2:]
	}
	if double || fs.singleLong || fs.short == nil {
		n, val, has := strings.Cut(name, "=")
		key := fs.key(n)
		kind, known := fs.long[key]
		if known || double || fs.short == nil {
			h := flagHit{flag: v[:len(v)-len(name)] + n, name: key, kind: kind, val: field{s: val}, has: has}
			i = h.next(args, i)
			return []flagHit{h}, i
		}
	}
	var hits []flagHit
	for j := 1; j < len(v); j++ {
		h := flagHit{flag: "-" + v[j:j+1], name: v[j : j+1], kind: fs.short[v[j]]}
		if h.kind.takesNext() || h.kind == kOptNum || h.kind == kAttached {
			h.val, h.has = field{s: v[j+1:]}, j+1 < len(v)
			i = h.next(args, i)
			return append(hits, h), i
		}
		hits = append(hits, h)
	}
	return hits, i
}

func (fs *flagSet) key(n string) string {
	if fs.fold {
		n = strings.ToLower(n)
	}
	if fs.underscore {
		n = strings.ReplaceAll(n, "_", "-")
	}
	return n
}

// next fills a value given as the next argument; it returns the index of
// the last argument used.
func (h *flagHit) next(args []field, i int) int {
	if h.has || i+1 >= len(args) {
		return i
	}
	if h.kind.takesNext() || h.kind == kOptNum && allDigits(args[i+1].s) {
		h.val, h.has = args[i+1], true
		return i + 1
	}
	return i
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// projectFlags decides about the options found: a value known only at run
// time asks, and so does an unknown option, since it may run programs.
func (a *analyzer) projectFlags(c *call, hits []flagHit) {
	for _, h := range hits {
		switch h.kind {
		case kCode, kDir, kOut, kDel: // checked as paths, which may be known only at run time
		case kValue, kOptNum, kBool: // a value that names nothing to run or write (make -j$(nproc))
		default:
			if h.has && isDynamic(h.val.s) {
				a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "an option of "+c.name+" whose value is known only at run time")
				continue
			}
		}
		switch h.kind {
		case kUnknown:
			a.note(sandbox.Ask, "shell.exec_option", c.disp, c.name+" "+show(h.flag)+
				": an option the analyser does not know, which may run other programs or load code")
		case kAsk:
			a.note(sandbox.Ask, "shell.exec_option", c.disp, c.name+" "+show(h.flag)+
				" runs code given on the command line or another program")
		case kCode, kDir:
			if h.has {
				a.projectPath(h.val, c)
			}
		case kOut:
			if h.has {
				a.buildOutput(h.val, c)
			}
		case kDel: // deleted before use: a deletion like rm -rf, inside the workspace too
			if h.has {
				a.access(h.val, accDelete, c.disp)
			}
		}
	}
}

// projectPath checks a file or directory whose code or configuration the
// tool runs: inside the workspace it is part of the project; anywhere else
// it asks, and from a process substitution it is denied.
func (a *analyzer) projectPath(f field, c *call) {
	defer a.access(f, accRead, c.disp) // secrets, links, globs; after the note that says why
	for _, cwd := range a.st.cwd {
		switch pi := a.classify(f, cwd); pi.kind {
		case pkInside:
		case pkPipe:
			a.note(sandbox.Deny, "shell.exec_substitution", c.disp, "runs code from a process substitution")
			return
		case pkUnknown:
			a.note(sandbox.Ask, "shell.dynamic_path", c.disp, c.name+" runs code or configuration from a path known only at run time")
			return
		default:
			what := c.name + " uses " + show(f.s) + ", outside the workspace, as code, configuration or a target"
			if f.s == "." {
				what = c.name + " runs the project of a directory outside the workspace"
			}
			a.note(sandbox.Ask, "shell.project_outside", c.disp, what)
			return
		}
	}
}

// responseFile asks for an operand naming a file of more arguments
// (tsc @args.txt, pytest @tests.txt), which the analyser does not read.
func (a *analyzer) responseFile(f field, c *call) bool {
	if !strings.HasPrefix(f.s, "@") {
		return false
	}
	a.note(sandbox.Ask, "shell.exec_option", c.disp, c.name+" reads more arguments from "+show(f.s)+
		", which the analyser does not see")
	return true
}

// projectDir checks the directory the tool runs in: the workspace or a
// directory in it, whose project files are the workspace's.
func (a *analyzer) projectDir(c *call) { a.projectPath(field{s: "."}, c) }

// projectOK notes the allow of a project build, test or lint command.
func (a *analyzer) projectOK(c *call) {
	a.note(sandbox.Allow, ruleProject, c.disp, reasonProject)
}

// notBuild lists the script and target names that by convention install,
// publish, deploy or start a server rather than build or test: they keep
// asking (a server would also only run until the command's timeout).
var notBuild = map[string]bool{
	"install": true, "uninstall": true, "deploy": true, "publish": true, "release": true, "push": true,
	"upload": true, "run": true, "serve": true, "server": true, "start": true, "dev": true, "up": true,
	"down": true, "preview": true, "docker": true,
}

// isNotBuild reports such a name, also as the first part of a longer one
// (start:prod, deploy-staging, serve.docs).
func isNotBuild(name string) bool {
	first, _, _ := strings.Cut(name, ":")
	if i := strings.IndexAny(first, "-_."); i > 0 {
		first = first[:i]
	}
	return notBuild[strings.ToLower(first)] || notBuild[strings.ToLower(name)]
}

// askNotBuild notes the ask for such a target or script.
func (a *analyzer) askNotBuild(c *call, name string) {
	a.note(sandbox.Ask, "shell.build", c.disp, show(name)+
		": by convention installs, publishes, deploys or starts a server, not a build or test")
}

// scriptArgs checks the arguments a project command hands to its scripts
// or test runner: a value known only at run time asks, and a path outside
// the workspace (an operand or an option's value) is code or configuration
// from elsewhere.
func (a *analyzer) scriptArgs(c *call, args []field) {
	for _, f := range args {
		v := f.s
		if strings.HasPrefix(v, "-") {
			_, val, ok := strings.Cut(v, "=")
			if !ok {
				if isDynamic(v) {
					a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "an argument known only at run time")
				}
				continue
			}
			f = field{s: val, glob: f.glob}
		}
		if isDynamic(f.s) || leadsOut(f.s) {
			a.projectPath(f, c)
		}
	}
}

// leadsOut reports a path that names a place outside the working
// directory by its spelling: absolute, under a home, or climbing out.
func leadsOut(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, mHome) || s == ".." || strings.HasPrefix(s, "../") ||
		strings.Contains(s, "/../") || strings.HasSuffix(s, "/..")
}

// toolchainEnv reports the variables that make a build tool of S11 load
// code or configuration, run another program or change its options:
// Rust's compiler wrappers and flags and cargo's configuration, npm's
// configuration, make's flags and makefiles, pytest's options and plugins,
// Python's start-up and Node's module loading. The few that change only
// output or diagnostics stay plain.
func toolchainEnv(name string) bool {
	switch name {
	case "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
		"PYTHONFAULTHANDLER", "PYTHONDEVMODE", "PYTHONNOUSERSITE", "NODE_ENV", "NODE_DEBUG", "NODE_NO_WARNINGS",
		"NODE_DISABLE_COLORS", "NODE_PENDING_DEPRECATION", "CARGO_INCREMENTAL", "CARGO_BUILD_JOBS",
		"CARGO_TERM_COLOR", "CARGO_TERM_VERBOSE", "CARGO_TERM_QUIET", "CARGO_TERM_PROGRESS_WHEN":
		return false
	case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "MAKE", "MAKESHELL", "MAKELEVEL", "MAKEOVERRIDES",
		"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "COVERAGE_PROCESS_START", "COVERAGE_RCFILE", "RUSTC", "RUSTDOC",
		"RUSTFLAGS", "RUSTDOCFLAGS", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS",
		"CGO_FFLAGS", "CGO_LDFLAGS":
		return true
	}
	for _, p := range []string{"PYTHON", "NODE_", "CARGO_", "RUSTC_", "RUSTUP_", "TS_NODE_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasPrefix(strings.ToLower(name), "npm_config_")
}

// insideList reports a search path (PYTHONPATH, NODE_PATH) every entry of
// which is a directory in the workspace; an empty entry is the working
// directory.
func (a *analyzer) insideList(val string) bool {
	for _, e := range strings.Split(val, ":") {
		if e == "" {
			e = "."
		}
		if hasMarker(e) {
			return false
		}
		for _, cwd := range a.st.cwd {
			if pi := a.classify(field{s: e}, cwd); pi.kind != pkInside || isSecret(pi) {
				return false
			}
		}
	}
	return true
}

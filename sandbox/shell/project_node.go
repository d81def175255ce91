package shell

import (
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// npmFlags are the npm options allowed with test and run. npm reads every
// other option before "--" as configuration for the scripts it runs
// (--script-shell, --node-options, --prefix elsewhere, -g), so those ask.
var npmFlags = sync.OnceValue(func() *flagSet {
	fs := newFlagSet(map[argKind]string{
		kBool: `s silent quiet d dd ddd verbose if-present ignore-scripts foreground-scripts ws workspaces
			include-workspace-root no-color color json parseable offline prefer-offline no-audit no-fund
			no-update-notifier no-progress progress`,
		kValue: "loglevel",
		kCode:  "w workspace prefix C",
	})
	fs.singleLong = true
	return fs
})

// npmCmd allows npm test and npm run <script> in the workspace (S11).
func npmCmd(a *analyzer, c *call, s *cmdSpec) {
	hits, ops, rest := scanArgs(c.args(), npmFlags())
	a.projectFlags(c, hits) // before the subcommand: an unknown option's value may look like one
	if len(ops) == 0 || isDynamic(ops[0].s) {
		a.note(s.dec, s.rule, c.disp, "npm without a command the analyser knows")
		return
	}
	var script field
	switch ops[0].s {
	case "test", "t", "tst":
		script, ops = field{s: "test"}, ops[1:]
	case "run", "run-script", "rum", "urn":
		if len(ops) > 1 {
			script = ops[1]
		}
		ops = ops[min(2, len(ops)):]
	default:
		a.note(s.dec, "shell.build", c.disp, "npm "+show(ops[0].s)+" installs, publishes, starts a server or uses the network")
		return
	}
	a.projectDir(c)
	a.projectOK(c)
	switch {
	case isDynamic(script.s):
		a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "an npm script known only at run time")
	case isNotBuild(script.s):
		a.askNotBuild(c, script.s)
	case !scriptName(script.s):
		a.note(sandbox.Ask, "shell.build", c.disp, "an npm script name with unusual characters")
	case script.s == "env": // npm's built-in env script prints the environment
		a.note(sandbox.Ask, "shell.env_dump", c.disp, "npm run env prints the environment, which may hold secrets")
		a.secretFlow = true
	}
	a.scriptArgs(c, append(ops, rest...))
}

// npxCmd allows npx tsc: the workspace's own TypeScript compiler. Any
// other package may be downloaded and run, so it asks.
func npxCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	i := 0
	for ; i < len(args); i++ {
		v := args[i].s
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		switch v {
		case "--no-install", "--no", "--offline", "--prefer-offline", "-q", "--quiet", "--silent":
		default:
			a.note(s.dec, "shell.build", c.disp, "npx "+show(v)+" may download a package or run another command")
			return
		}
	}
	if i >= len(args) || args[i].s != "tsc" {
		a.note(s.dec, "shell.build", c.disp, "npx runs a package, which it may download first")
		return
	}
	tscCmd(a, c.sub(args[i:]), s)
}

// tscFlags are the TypeScript compiler's options that name files; tsc
// runs no code, so its other options are allowed.
var tscFlags = sync.OnceValue(func() *flagSet {
	fs := newFlagSet(map[argKind]string{
		kCode: "p project",
		kOut:  "outdir outfile out declarationdir tsbuildinfofile generatetrace generatecpuprofile",
	})
	fs.singleLong, fs.fold = true, true
	return fs
})

// tscCmd allows the TypeScript compiler on the workspace: a source or
// project outside it would have its output written next to it.
func tscCmd(a *analyzer, c *call, s *cmdSpec) {
	c.name = "tsc"
	hits, ops, rest := scanArgs(c.args(), tscFlags())
	a.projectDir(c)
	a.projectOK(c)
	for _, h := range hits {
		switch {
		case h.has && isDynamic(h.val.s):
			a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "a tsc option whose value is known only at run time")
		case h.kind == kCode:
			a.projectPath(h.val, c)
		case h.kind == kOut:
			a.buildOutput(h.val, c)
		case h.has && leadsOut(h.val.s):
			a.access(h.val, accRead, c.disp)
		}
	}
	for _, f := range append(ops, rest...) {
		if !a.responseFile(f, c) {
			a.projectPath(f, c)
		}
	}
}

// nodeTestFlags are the node options allowed with --test: the test
// runner's own and harmless runtime ones. Everything else (--require,
// --import, --loader, -e, --env-file, --inspect, …) asks.
var nodeTestFlags = sync.OnceValue(func() *flagSet {
	fs := newFlagSet(map[argKind]string{
		kBool: `test test-only test-force-exit test-update-snapshots experimental-test-coverage
			experimental-test-snapshots experimental-test-module-mocks experimental-strip-types
			no-experimental-strip-types experimental-transform-types experimental-vm-modules
			experimental-detect-module no-experimental-detect-module enable-source-maps no-warnings
			no-deprecation trace-warnings trace-deprecation throw-deprecation pending-deprecation
			trace-uncaught watch preserve-symlinks expose-gc`,
		kValue: `test-name-pattern test-skip-pattern test-concurrency test-timeout test-shard
			test-coverage-include test-coverage-exclude test-coverage-lines test-coverage-branches
			test-coverage-functions experimental-test-isolation test-isolation experimental-default-type
			conditions C disable-warning unhandled-rejections max-old-space-size stack-trace-limit`,
		kSpecial: "test-reporter test-reporter-destination",
	})
	fs.underscore = true
	return fs
})

// nodeCmd allows node --test on files in the workspace (S11); any other
// node command line is an interpreter's.
func nodeCmd(a *analyzer, c *call, s *cmdSpec) {
	for _, f := range c.args() {
		if f.s == "--test" {
			nodeTest(a, c)
			return
		}
		if !strings.HasPrefix(f.s, "-") || f.s == "-" || f.s == "--" {
			break // node's own options end at the script
		}
	}
	interpCmd(a, c, s)
}

func nodeTest(a *analyzer, c *call) {
	hits, ops, rest := scanArgs(c.args(), nodeTestFlags())
	a.projectDir(c)
	a.projectOK(c)
	for i, h := range hits {
		if h.kind != kSpecial || isDynamic(h.val.s) {
			continue
		}
		switch {
		case h.name == "test-reporter" && builtinReporter(h.val.s):
		case h.name == "test-reporter-destination" && (h.val.s == "stdout" || h.val.s == "stderr"):
		case h.name == "test-reporter-destination":
			a.buildOutput(h.val, c)
		default:
			a.note(sandbox.Ask, "shell.exec_option", c.disp, "node --test-reporter loads a reporter module")
		}
		hits[i].kind = kBool
	}
	a.projectFlags(c, hits)
	for _, f := range append(ops, rest...) {
		a.projectPath(f, c)
	}
}

func builtinReporter(name string) bool {
	switch name {
	case "spec", "tap", "dot", "junit", "lcov":
		return true
	}
	return false
}

// scriptName reports a script name of the characters package.json files
// use (test:unit, build.prod, lint-fix, @scope/x); "" lists the scripts.
func scriptName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isASCIILetter(c) && (c < '0' || c > '9') && strings.IndexByte(":._@/+-", c) < 0 {
			return false
		}
	}
	return true
}

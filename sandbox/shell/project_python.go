package shell

import (
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// pytestFlags are pytest's options and those of its common plugins
// (pytest-cov, -xdist, -timeout, -rerunfailures, -randomly, -asyncio,
// -benchmark, -html). Options that load code (-p, --pdbcls), read
// configuration (-c, --rootdir, --confcutdir, --cov-config) or override
// it (-o) are special or ask; unknown ones ask.
var pytestFlags = sync.OnceValue(func() *flagSet {
	return newFlagSet(map[argKind]string{
		kBool: `short:x short:v short:q short:s short:l short:h short:V exitfirst verbose quiet lf last-failed
			ff failed-first nf new-first sw stepwise sw-skip stepwise-skip cache-clear showlocals
			no-showlocals full-trace runxfail co collect-only setup-only setup-show setup-plan fixtures
			funcargs fixtures-per-test markers strict-markers strict-config strict disable-warnings
			disable-pytest-warnings doctest-modules doctest-ignore-import-errors
			doctest-continue-on-failure continue-on-collection-errors pyargs keep-duplicates
			collect-in-virtualenv noconftest no-header no-summary version help pdb trace
			cov-append cov-branch no-cov self-contained-html benchmark-skip benchmark-only
			benchmark-disable hypothesis-show-statistics looponfail cache-show cov`,
		kValue: `short:k short:m short:r short:n tb capture color code-highlight show-capture maxfail
			durations durations-min verbosity import-mode assert doctest-glob doctest-report ignore
			ignore-glob deselect log-level log-format log-date-format log-cli-level log-cli-format
			log-cli-date-format log-file-level log-file-format log-file-date-format junit-prefix
			numprocesses dist maxprocesses timeout timeout-method reruns reruns-delay only-rerun
			randomly-seed asyncio-mode cov-fail-under cov-context hypothesis-seed`,
		kCode:     "short:c config-file rootdir confcutdir cov-config",
		kOut:      "junitxml junit-xml log-file html",
		kDel:      "basetemp",
		kAttached: "debug",
		kAsk:      "short:o override-ini pdbcls pastebin",
		kSpecial:  "short:p short:W pythonwarnings cov-report",
	})
})

// pytestCmd allows pytest in the workspace (S11).
func pytestCmd(a *analyzer, c *call, s *cmdSpec) {
	c.name = "pytest"
	pytestArgs(a, c, c.args())
}

func pytestArgs(a *analyzer, c *call, args []field) {
	hits, ops, rest := scanArgs(args, pytestFlags())
	a.projectDir(c)
	a.projectOK(c)
	for i, h := range hits {
		switch {
		case h.kind == kAttached && h.name == "debug" && h.has: // --debug=FILE
			hits[i].kind = kOut
			continue
		case h.kind != kSpecial || isDynamic(h.val.s):
			continue
		case h.name == "p" && strings.HasPrefix(h.val.s, "no:"): // disables a plugin
		case h.name == "p":
			a.note(sandbox.Ask, "shell.exec_option", c.disp, "pytest -p loads a plugin module")
		case h.name == "cov-report":
			if _, dest, ok := strings.Cut(h.val.s, ":"); ok && dest != "" {
				a.buildOutput(field{s: dest}, c)
			}
		case warnImports(h.val.s): // -W
			a.note(sandbox.Ask, "shell.exec_option", c.disp, "the warnings filter imports the module of its category")
		}
		hits[i].kind = kBool
	}
	a.projectFlags(c, hits)
	for _, f := range append(ops, rest...) {
		if p, _, ok := strings.Cut(f.s, "::"); ok { // tests/test_a.py::TestX::test_y
			f = field{s: p}
		}
		if !a.responseFile(f, c) {
			a.projectPath(f, c)
		}
	}
}

// warnImports reports a warnings filter (action:message:category:…)
// whose category names a module, which Python imports to find it.
func warnImports(filter string) bool {
	parts := strings.SplitN(filter, ":", 4)
	return len(parts) > 2 && strings.Contains(parts[2], ".")
}

// unittestFlags are python -m unittest's options, with discover's.
var unittestFlags = sync.OnceValue(func() *flagSet {
	return newFlagSet(map[argKind]string{
		kBool:  "short:v short:q short:f short:c short:b short:h verbose quiet failfast catch buffer locals help",
		kValue: "short:k short:p durations pattern",
		kCode:  "short:s short:t start-directory top-level-directory",
	})
})

// unittestArgs allows python -m unittest on tests in the workspace: its
// operands are test modules, files or discover's directories.
func unittestArgs(a *analyzer, c *call, args []field) {
	hits, ops, rest := scanArgs(args, unittestFlags())
	a.projectDir(c)
	a.projectOK(c)
	a.projectFlags(c, hits)
	ops = append(ops, rest...)
	discover := len(ops) > 0 && ops[0].s == "discover"
	for i, f := range ops {
		switch {
		case discover && i == 0:
		case discover && i == 2: // the file name pattern
			if isDynamic(f.s) {
				a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "a test pattern known only at run time")
			}
		default:
			a.projectPath(f, c)
		}
	}
}

// pythonCmd allows python -m pytest and python -m unittest (S11), after
// interpreter options that load nothing; anything else is decided as an
// interpreter.
func pythonCmd(a *analyzer, c *call, s *cmdSpec) {
	fam := strings.TrimRight(c.name, "0123456789.")
	if fam == "python" || fam == "pypy" {
		if mod, args, ok := a.pythonModule(c.args()); ok {
			switch mod {
			case "pytest":
				pytestArgs(a, c, args)
				return
			case "unittest":
				unittestArgs(a, c, args)
				return
			}
		}
	}
	interpCmd(a, c, s)
}

// pythonModule finds python's -m module after options that are safe with
// it, returning the module and its arguments.
func (a *analyzer) pythonModule(args []field) (mod string, rest []field, ok bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].s
		if len(v) < 2 || v[0] != '-' || v[1] == '-' || isDynamic(v) {
			return "", nil, false
		}
		for j := 1; j < len(v); j++ {
			switch ch := v[j]; {
			case strings.IndexByte("bBdEIOPqRsSuv", ch) >= 0:
				continue
			case ch == 'm' || ch == 'X' || ch == 'W':
				val := v[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i].s
				}
				switch {
				case ch == 'm':
					return val, args[i+1:], true
				case ch == 'X' && !safePythonX(val), ch == 'W' && warnImports(val):
					return "", nil, false
				}
			default:
				return "", nil, false
			}
			break
		}
	}
	return "", nil, false
}

// safePythonX reports -X options that change nothing but diagnostics.
func safePythonX(opt string) bool {
	name, _, _ := strings.Cut(opt, "=")
	switch name {
	case "dev", "utf8", "importtime", "faulthandler", "tracemalloc", "warn_default_encoding",
		"no_debug_ranges", "frozen_modules", "int_max_str_digits", "showrefcount":
		return true
	}
	return false
}

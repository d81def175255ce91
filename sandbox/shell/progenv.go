package shell

import "strings"

// Variables that name a program a build or a tool runs, or options that
// make it run one (T19, issue 22 item 7), decided as GOFLAGS is: they ask.
// make's implicit rules run $(AR), $(RM), … and take them from the
// environment; go runs $GOROOT's tools, $PKG_CONFIG, $GCCGO and
// $CC_FOR_<os>_<arch>; tar reads TAR_OPTIONS, rg RIPGREP_CONFIG_PATH, and
// iconv loads modules from GCONV_PATH. Compiler flags (CFLAGS, LDFLAGS…)
// ask unless every flag is one that runs and loads nothing (-O2, -g,
// -Wall, -DX, -I dir…): -wrapper, -B, -fplugin and -specs name programs.

// programEnv reports a variable whose value names a program or options
// that run one.
func programEnv(name string) bool {
	switch name {
	case "AR", "AS", "CPP", "FC", "F77", "M2C", "PC", "CO", "GET", "LEX", "YACC", "LINT", "MAKEINFO", "TEX",
		"TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "RM", "NM", "RANLIB", "STRIP", "OBJCOPY", "OBJDUMP",
		"PKG_CONFIG", "GCCGO", "GOROOT", "TAR_OPTIONS", "RIPGREP_CONFIG_PATH", "GCONV_PATH":
		return true
	}
	return strings.HasPrefix(name, "CC_FOR_") || strings.HasPrefix(name, "CXX_FOR_")
}

// compilerFlagsEnv reports the variables that hold compiler or linker
// flags for make's implicit rules and build scripts.
func compilerFlagsEnv(name string) bool {
	switch name {
	case "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "FFLAGS", "FCFLAGS", "ASFLAGS", "OBJCFLAGS":
		return true
	}
	return false
}

// safeCompilerFlags reports flags that only tune the compilation:
// optimisation, debug information, warnings, defines, standards, machine
// and code-generation options, include and library paths and libraries.
func safeCompilerFlags(val string) bool {
	for _, f := range strings.Fields(val) {
		if !safeCompilerFlag(f) {
			return false
		}
	}
	return true
}

func safeCompilerFlag(f string) bool {
	switch f {
	case "-pipe", "-pthread", "-pedantic", "-static", "-shared", "-s", "-w", "-c", "-rdynamic", "-ansi":
		return true
	}
	if len(f) < 2 || f[0] != '-' || isDynamic(f) {
		return false
	}
	rest := f[2:]
	switch f[1] {
	case 'O', 'g', 'm':
		return strings.Trim(strings.ToLower(rest), "abcdefghijklmnopqrstuvwxyz0123456789=._-") == ""
	case 'W':
		return !strings.Contains(rest, ",") || strings.HasPrefix(rest, "l,") && !strings.Contains(strings.ToLower(rest), "plugin")
	case 'f':
		l := strings.ToLower(rest)
		return !strings.Contains(l, "plugin") && !strings.Contains(l, "use-ld") && !strings.Contains(l, "specs")
	case 'D', 'U', 'I', 'L', 'l':
		return true
	case 's':
		return strings.HasPrefix(rest, "td=")
	}
	return false
}

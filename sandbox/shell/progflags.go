package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Options of otherwise read-only commands that name a program the command
// runs (T19, issue 22 item 7): sort --compress-program, sdiff and diff3
// --diff-program, rg --pre and --hostname-bin, tar's compressors, scripts
// and commands. GNU getopt and argp accept any unambiguous prefix of a
// long option (sort --compress=x), so a prefix counts as the option.

// programOpts lists, per command, the long options whose value is a
// program it runs.
var programOpts = map[string][]string{
	"sort":  {"compress-program"},
	"sdiff": {"diff-program"},
	"diff3": {"diff-program"},
	"rg":    {"hostname-bin"}, // and --pre, shell.rg_pre
	"tar": {"use-compress-program", "to-command", "info-script", "new-volume-script", "rsh-command",
		"rmt-command", "checkpoint-action"},
}

// longPrefix returns the option of full that name abbreviates (or is),
// "" when none: the first, where getopt would call the prefix ambiguous.
func longPrefix(name string, full []string) string {
	if name == "" {
		return ""
	}
	for _, f := range full {
		if strings.HasPrefix(f, name) {
			return f
		}
	}
	return ""
}

// programFlags asks for each option of c that names a program it runs.
func (a *analyzer) programFlags(c *call, o opts) {
	for _, f := range o.flags {
		if !f.long { // a short option: tar's -I and -F are checked by tarCmd
			continue
		}
		if full := longPrefix(f.name, programOpts[c.name]); full != "" {
			a.note(sandbox.Ask, "shell.exec_option", c.disp, c.name+" --"+full+" runs another program")
		}
	}
}

// hasLong reports a long option that is, or abbreviates, one of full.
func (o *opts) hasLong(full ...string) bool {
	for _, f := range o.flags {
		if f.long && longPrefix(f.name, full) != "" {
			return true
		}
	}
	return false
}

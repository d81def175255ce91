package shell

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Read-only git commands that still run a program. git help NAME, git
// NAME --help and git --help NAME open a manual page with a program the
// repository's configuration may name (man.viewer, man.<tool>.cmd or
// .path, help.format, help.browser, web.browser, browser.<tool>.cmd or
// .path): they ask (S8). Lists (git help, -a, -g) and usage (-h) print
// text and run nothing. git grep -O<pager> runs its pager on the files.

const ruleGitHelp = "shell.git_help"

// gitHelpOpens reports a git help command line that opens a manual.
func gitHelpOpens(sub string, rest []field) bool {
	if sub != "help" {
		return slices.ContainsFunc(rest, func(f field) bool { return f.s == "--help" })
	}
	for _, f := range rest {
		switch f.s {
		case "-a", "--all", "-g", "--guides", "-c", "--config", "--user-interfaces", "--developer-interfaces",
			"--no-external-commands", "--no-aliases", "--verbose":
		default:
			return true // a page, -m/-w/-i, or an option the analyser does not know
		}
	}
	return false
}

// gitHelpAsk notes the ask for such a command.
func (a *analyzer) gitHelpAsk(c *call) {
	a.note(sandbox.Ask, ruleGitHelp, c.disp,
		"git help opens a manual with a viewer or browser the repository's configuration may name")
}

// gitGrepPager reports git grep's -O<pager> and --open-files-in-pager,
// which parse-options also takes abbreviated (--open=…).
func gitGrepPager(name string) bool {
	return strings.HasPrefix(name, "-O") || len(name) > 3 && strings.HasPrefix("--open-files-in-pager", name)
}

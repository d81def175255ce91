package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// synopses are the usage lines of the subcommands, shown by
// `agentls CMD --help` and `agentls help CMD` (E17).
var synopses = map[string]string{
	"serve":    "agentls [serve] [-log FILE] [-v] [-profile NAME] [--stdio]   speak LSP on stdio (editors start this)",
	"acp":      "agentls acp [-log FILE] [-v] [-profile NAME] [--root DIR]   speak the Agent Client Protocol on stdio (Zed, JetBrains, Neovim, Emacs)",
	"plan":     "agentls plan [--file F] [--range L1:C1-L2:C2] [--json] [--explain] INSTRUCTION   a read-only plan",
	"review":   "agentls review [--file F] [--range L1:C1-L2:C2] [--json] [--explain] [--fail-on LEVEL] [--format sarif] [INSTRUCTION]   findings, no changes",
	"exec":     "agentls exec [--file F] [--range L1:C1-L2:C2] [--approve ask|never|all] [--json] [--explain] INSTRUCTION   make the change; every edit asked",
	"execute":  "agentls exec [--file F] [--range L1:C1-L2:C2] [--approve ask|never|all] [--json] INSTRUCTION   make the change; every edit asked",
	"vet":      "agentls vet --root DIR [--policy FILE] [--profile NAME] [--resolve HOST:PORT:ADDR]... [--start] [--explain] < calls.jsonl",
	"call":     "agentls call [--root DIR] [--policy FILE] [--profile NAME] [--approve never|all] TOOL JSON",
	"sessions": "agentls sessions [--json] [show ID]   this workspace's sessions, the last used first",
	"revert":   "agentls revert [--json] [--session ID] [RUN]   restore the files a run changed (default: the last run)",
	"mcp":      "agentls mcp list [--root DIR] [--json]   the MCP servers, their state and tools",
	"trust":    "agentls trust [--root DIR] [--yes|--revoke]   review and trust the project's hooks and MCP servers",
	"policy":   "agentls policy [list] [--json] | agentls policy --revoke ID|all   the kept \"always\" answers (scope, tool, subject, when), and forgetting them",
	"why":      "agentls why [--json] RUN-ID[:STEP]   why each step of a run was allowed, asked or denied: the rule, where it comes from, who approved",
	"import":   "agentls import [--write] [--json] [--root DIR] claude|codex   what of Claude Code's or Codex's settings agentls honours, translates or ignores, and why",
	"demo":     "agentls demo   an offline demo with a built-in scripted model",
	"version":  "agentls version [--sandbox]   the version, and which sandbox layers this machine has",
}

// parseFlags parses a subcommand's flags. -h or --help prints its usage
// and flags to stdout and ends the command with exit code 0; a bad flag
// prints the error and the usage to stderr, exit code 2. ok is false when
// the command must return code.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard) // the flag package's own messages: we print them below
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, stdout)
		return 0, false
	case err != nil:
		fmt.Fprintf(stderr, "agentls %s: %v\n", fs.Name(), err)
		printUsage(fs, stderr)
		return 2, false
	}
	fs.SetOutput(stderr)
	return 0, true
}

func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\nflags:\n", synopses[fs.Name()])
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch strings.TrimLeft(arg, "-") {
	case "h", "help":
		return strings.HasPrefix(arg, "-") || arg == "help"
	}
	return false
}

// onTerminal reports whether stdin (or stderr) is a terminal: plain `agentls` typed
// by a person prints the usage instead of waiting silently for LSP, and
// headless runs ask there. A character device is not enough: /dev/null
// is one too, and `agentls exec … </dev/null` is a script.
func onTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

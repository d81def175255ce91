package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/headless"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// headless runs plan, review or exec in the current directory (E11).
func (c *cli) headless(ctx context.Context, cmd string, args []string) int {
	fs := c.flags(cmd)
	file := fs.String("file", "", "file the instruction is about, relative to the current directory")
	rng := fs.String("range", "", "selection L1:C1-L2:C2 (1-based) in --file")
	approve := fs.String("approve", "", "how to answer approvals: ask, never or all (default: ask on a terminal, never otherwise)")
	asJSON := fs.Bool("json", false, "print one JSON event per line")
	verbose := fs.Bool("v", false, "debug logging on stderr")
	profile := profileFlag(fs, tools.ProfileHeadless, "policy profile: editor, headless or ci")
	cont := fs.Bool("continue", false, "continue the workspace's most recent session")
	sessionID := fs.String("session", "", "continue the session with this ID (or a unique prefix)")
	var strict strictFlag
	fs.Var(&strict, "strict", "fail the run instead of repairing silently (CI, evaluations); --strict=pairing,compaction,normalizer for some")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	name := cmd
	if cmd == "exec" {
		name = "execute"
	}
	mode, err := agent.ParseMode(name)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls %s: %v\n", cmd, err)
		return 2
	}
	instruction := strings.Join(rest, " ")
	if *cont && *sessionID != "" {
		fmt.Fprintf(c.stderr, "agentls %s: --continue and --session exclude each other\n", cmd)
		return 2
	}
	continuing := *cont || *sessionID != ""
	// An execute that continues a session without an instruction carries
	// out the plan above.
	if strings.TrimSpace(instruction) == "" && mode.DefaultInstruction() == "" && !(continuing && mode == agent.ModeExecute) {
		fmt.Fprintf(c.stderr, "agentls %s: an instruction is required\n", cmd)
		return 2
	}
	if *approve == "" {
		*approve = defaultApprove(c.stdin)
	}
	switch headless.Approve(*approve) {
	case headless.ApproveAsk, headless.ApproveNever, headless.ApproveAll:
	default:
		fmt.Fprintf(c.stderr, "agentls %s: --approve must be ask, never or all\n", cmd)
		return 2
	}
	if *rng != "" && *file == "" {
		fmt.Fprintf(c.stderr, "agentls %s: --range needs --file\n", cmd)
		return 2
	}
	if msg := checkFileFlag(*file); msg != "" {
		fmt.Fprintf(c.stderr, "agentls %s: --file %s\n", cmd, msg)
		return 2
	}
	defer headlessProcs(c.getenv)()
	logw := io.Discard
	if *verbose {
		logw = c.stderr
	}
	log := newLogger(logw, *verbose)
	// No prestart: a headless run is one task, and the warm helper it
	// would keep is one init more than its commands, thrown away at exit
	// (3–4 ms of CPU per session, issue 16), to save a command about
	// 1.5 ms of start that nothing waits on. The zygote stays warm anyway.
	opts, done := c.server(log, log, *profile, nil)
	defer done()
	opts.Strict = strict.Strict
	if *cont {
		*sessionID = latestSession(opts.StateDir, c.stderr)
	}
	opts.StartExtensions = c.extensionStarter(warnLogger(c.stderr, *verbose), false)
	return headless.Exec(ctx, &headless.Options{
		Mode: mode, Instruction: instruction, File: *file, Range: *rng, SessionID: *sessionID,
		Approve: headless.Approve(*approve), JSON: *asJSON,
		Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, Server: opts,
	})
}

// defaultApprove is ask on a terminal and never otherwise, so a script
// can never approve by accident.
func defaultApprove(stdin io.Reader) string {
	if onTerminal(stdin) {
		return string(headless.ApproveAsk)
	}
	return string(headless.ApproveNever)
}

// strictFlag is --strict (every dimension) or --strict=pairing,compaction,normalizer.
type strictFlag struct{ agent.Strict }

func (f *strictFlag) IsBoolFlag() bool { return true }

func (f *strictFlag) String() string { return fmt.Sprintf("%+v", f.Strict) }

func (f *strictFlag) Set(s string) error {
	for _, d := range strings.Split(s, ",") {
		switch strings.TrimSpace(d) {
		case "true", "all":
			f.Strict = agent.Strict{Pairing: true, Compaction: true, Normalizer: true}
		case "false", "":
		case "pairing":
			f.Pairing = true
		case "compaction":
			f.Compaction = true
		case "normalizer":
			f.Normalizer = true
		default:
			return fmt.Errorf("unknown dimension %q (want pairing, compaction, normalizer)", d)
		}
	}
	return nil
}

// checkFileFlag says what is wrong with --file f, or "" when f is empty
// or a file: a missing file or a directory is a bad command line, not a
// run about nothing.
func checkFileFlag(f string) string {
	if f == "" {
		return ""
	}
	fi, err := os.Stat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sandbox.Visible(f) + ": no such file"
	case err != nil:
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return sandbox.Visible(f) + ": " + err.Error()
	case fi.IsDir():
		return sandbox.Visible(f) + ": a directory, not a file"
	}
	return ""
}

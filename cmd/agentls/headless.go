package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
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
	explain := fs.Bool("explain", false, "print why each tool call was allowed, asked or denied: the rule, where it was written, who approved (as agentls why)")
	verbose := fs.Bool("v", false, "debug logging on stderr")
	profile := profileFlag(fs, tools.ProfileHeadless, "policy profile: editor, headless or ci")
	cont := fs.Bool("continue", false, "continue the workspace's most recent session")
	sessionID := fs.String("session", "", "continue the session with this ID (or a unique prefix)")
	var strict strictFlag
	fs.Var(&strict, "strict", "fail the run instead of repairing silently (CI, evaluations); --strict=pairing,compaction,normalizer for some")
	var rf reviewFlags
	if cmd == "review" {
		rf.define(fs)
	}
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	mode, err := modeOf(cmd)
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
	if msg := cmp.Or(checkSelection(*file, *rng), rf.conflict(*asJSON)); msg != "" {
		fmt.Fprintf(c.stderr, "agentls %s: %s\n", cmd, msg)
		return 2
	}
	defer headlessProcs(c.getenv)()
	logw := io.Discard
	if *verbose {
		logw = c.stderr
	}
	log := newLogger(logw, *verbose)
	// No prestart: its warm helper would cost 3–4 ms of CPU per session to
	// save 1.5 ms nothing waits on (issue 16); the zygote stays warm.
	opts, done := c.server(log, log, *profile, nil)
	defer done()
	opts.Strict = strict.Strict
	if *cont {
		*sessionID = latestSession(opts.StateDir, c.stderr)
	}
	opts.StartExtensions = c.extensionStarter(warnLogger(c.stderr, *verbose), false)
	return headless.Exec(ctx, &headless.Options{
		Mode: mode, Instruction: instruction, File: *file, Range: *rng, SessionID: *sessionID,
		Approve: headless.Approve(*approve), JSON: *asJSON || rf.format == "json", Explain: *explain,
		// A19: the spinner only where a person watches: a terminal.
		Spinner: !*asJSON && rf.format == "" && onTerminal(c.stderr),
		FailOn:  rf.failOn, SARIF: rf.format == "sarif", Version: buildVersion(),
		Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, Server: opts,
	})
}

// modeOf is the mode of the command cmd (exec is execute).
func modeOf(cmd string) (agent.Mode, error) {
	if cmd == "exec" {
		cmd = "execute"
	}
	return agent.ParseMode(cmd)
}

// conflict says why the review flags do not go with --json, or "".
func (r *reviewFlags) conflict(asJSON bool) string {
	if asJSON && r.format == "sarif" {
		return "--json and --format sarif exclude each other"
	}
	return ""
}

// reviewFlags are review's flags for CI (A19): --fail-on LEVEL and
// --format text|json|sarif.
type reviewFlags struct {
	failOn string
	format string // "" is text
}

func (r *reviewFlags) define(fs *flag.FlagSet) {
	fs.Func("fail-on", "exit with code 4 when a finding is at least `LEVEL`: error, warning, info or hint", func(v string) error {
		if !slices.Contains(headless.Severities, v) {
			return fmt.Errorf("want one of %s", strings.Join(headless.Severities, ", "))
		}
		r.failOn = v
		return nil
	})
	fs.Func("format", "output `FORMAT`: text, json (as --json) or sarif (a SARIF 2.1.0 log of the findings on stdout)", func(v string) error {
		switch v {
		case "text":
			r.format = ""
		case "json", "sarif":
			r.format = v
		default:
			return errors.New("want text, json or sarif")
		}
		return nil
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

// checkSelection says what is wrong with --file and --range, or "": a
// bad range is a bad command line (exit code 2), found before anything
// starts.
func checkSelection(file, rng string) string {
	if rng != "" && file == "" {
		return "--range needs --file"
	}
	if msg := checkFileFlag(file); msg != "" {
		return "--file " + msg
	}
	if rng == "" {
		return ""
	}
	if _, err := headless.ParseRange(rng); err != nil {
		return sandbox.VisibleText(strings.TrimPrefix(err.Error(), headless.ErrUsage.Error()+": "))
	}
	return ""
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/headless"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

const usage = `usage:
  agentls [serve] [-log FILE] [-v]     speak LSP on stdio (editors start this)
  agentls plan|review|exec [--file F] [--range L1:C1-L2:C2] [--approve ask|never|all] [--json]
                       [--explain] [--continue | --session ID] INSTRUCTION
  agentls sessions [--json] [show ID]  this workspace's sessions, the last used first
  agentls revert [--json] [RUN]        restore the files a run changed (default: the last run)
  agentls vet --root DIR [--policy FILE] [--profile NAME] [--resolve HOST:PORT:ADDR]... [--explain] < calls.jsonl
  agentls call [--root DIR] [--approve never|all] TOOL JSON
  agentls mcp list [--root DIR] [--json]  the MCP servers, their state and tools
  agentls trust [--root DIR] [--yes|--revoke]  review and trust the project's hooks and MCP servers
  agentls policy [list] [--json] | --revoke ID|all  the kept "always" answers, and forgetting them
  agentls why RUN-ID[:STEP] [--json]  why each step of a run was allowed, asked or denied
  agentls import claude|codex [--write]  what of Claude Code's or Codex's settings agentls honours
  agentls acp [--root DIR]             speak the Agent Client Protocol on stdio (Zed, JetBrains, acpx…)
  agentls demo                         offline demo with a built-in scripted model
  agentls version [--sandbox]          the version, and which sandbox layers this machine has

  agentls help [CMD]                   this text, or a command's flags (also: agentls CMD --help)

Model: OPENAI_BASE_URL, OPENAI_API_KEY, AGENTLS_MODEL, AGENTLS_STALL_TIMEOUT, or ~/.config/agentls/config.json.
`

// subcommands are the commands that run with the user's config, each
// given the name it was called by (exec and execute share one).
var subcommands = map[string]func(c *cli, ctx context.Context, name string, args []string) int{
	"serve": (*cli).serve, "plan": (*cli).headless, "review": (*cli).headless, "exec": (*cli).headless, "execute": (*cli).headless,
	"vet": (*cli).vet, "sessions": (*cli).sessions, "revert": (*cli).revert, "call": (*cli).call, "mcp": (*cli).mcp, "trust": (*cli).trust,
	"acp": (*cli).acp, "policy": (*cli).policy, "why": (*cli).why, "import": (*cli).importSettings,
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := "serve"
	switch {
	case len(args) == 0 && onTerminal(stdin):
		// A person typed plain `agentls`: say what it does (E17).
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 0 && isHelp(args[0]):
		if len(args) > 1 && args[0] == "help" { // agentls help CMD
			if synopses[args[1]] == "" {
				fmt.Fprintf(stderr, "agentls help: no command %q\n%s", args[1], usage)
				return 2
			}
			return run(ctx, []string{args[1], "--help"}, stdin, stdout, stderr, getenv)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		cmd, args = args[0], args[1:]
	}
	if (cmd == "demo" || cmd == "version") && len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintf(stdout, "usage: %s\n", synopses[cmd])
		return 0
	}
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	if sub, ok := subcommands[cmd]; ok {
		// Every subcommand reads the user's config file first, once: a
		// file it cannot use (a FIFO, a typo) is an error at once.
		user, err := loadUserConfig(getenv)
		if err != nil {
			fmt.Fprintln(stderr, configError(err))
			return 1
		}
		c.user = user
		return sub(c, ctx, cmd, args)
	}
	switch cmd {
	case "demo":
		newModel := func(baseURL, model string) (agent.Model, error) {
			return openai.New(&openai.Options{BaseURL: baseURL, Model: model, APIKey: "demo"})
		}
		if err := headless.Demo(ctx, stdout, stderr, newModel); err != nil {
			fmt.Fprintf(stderr, "agentls demo: %v\n", err)
			return 1
		}
		return 0
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "agentls %s\n", buildVersion())
		fmt.Fprintln(stdout, auditHealth(getenv))
		if len(args) > 0 && args[0] == "--sandbox" {
			r := exec.New(&exec.Options{Helper: sandboxHelper()})
			fmt.Fprint(stdout, r.Layers())
			r.Close()
		}
		return 0
	}
	fmt.Fprintf(stderr, "agentls: unknown command %q\n%s", cmd, usage)
	return 2
}

func (c *cli) serve(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	sf := newServerFlags(fs)
	// LSP clients (vscode-languageclient with TransportKind.stdio, many
	// others) pass --stdio; stdio is the only transport, so it changes nothing.
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default and only transport; accepted for LSP clients that pass it)")
	// Words that are not flags are ignored, as before: an editor's
	// command line is not the user's to fix.
	if _, code, ok := c.parse(fs, args); !ok {
		return code
	}
	lspserver.Version = buildVersion()
	log, opts, done, err := c.startServer(sf)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls: %v\n", err)
		return 1
	}
	defer done()
	opts.StartExtensions = c.extensionStarter(log, true)
	err = lspserver.Serve(ctx, stdio{pollable(c.stdin), c.stdout}, opts)
	switch {
	case errors.Is(err, lspserver.ErrExitWithoutShutdown):
		log.Warn("Exit without shutdown; exit code 1, as the LSP specification asks")
		return 1
	case err != nil && !errors.Is(err, context.Canceled):
		log.Error("Server stopped", slog.String("err", err.Error()))
		return 1
	}
	return 0
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// server is the wiring serve and the headless runs share: the server's
// options from the user's config and policy, the audit log, and the
// sandbox's process runner made from ex (nil: no prestart). done closes
// what it opened.
func (c *cli) server(log, extLog *slog.Logger, profile string, ex *exec.Options) (opts *lspserver.Options, done func()) {
	opts = serverOptions(c.user, c.getenv, log, profile)
	closer := openAudit(opts, c.getenv, log)
	if ex == nil {
		ex = &exec.Options{}
	}
	ex.Logger, ex.Helper = log, sandboxHelper()
	procs := exec.New(ex)
	opts.Exec = procs
	return opts, func() {
		procs.Close()
		if closer != nil {
			closer.Close()
		}
	}
}

// serverOptions wires the model configuration into the server. A missing
// model is not an error here: the server starts and each run says what to
// configure.
func serverOptions(user *userConfig, getenv func(string) string, log *slog.Logger, profile string) *lspserver.Options {
	cfg := user.Model
	log.Debug("Model config", slog.String("config", cfg.String()))
	userPolicy := userPolicyPath(getenv)
	if p := getenv("AGENTLS_POLICY"); p != "" {
		userPolicy = p // the editor's agentls.policyFile setting
	}
	httpc := openai.NewHTTPClient() // one for the server, shared by its runs
	return &lspserver.Options{
		StateDir:      stateDir(getenv),
		Logger:        log,
		MaxTurns:      cfg.MaxTurns,
		ContextTokens: cfg.ContextTokens,
		LoadPolicy: func(root string) (*tools.Policy, error) {
			return tools.LoadPolicy(profile, userPolicy, projectPolicyPath(root))
		},
		// E10: external changes make pending proposals stale and reload
		// the policy; the project's .agentls/ is inside the workspace.
		Watch: &lspserver.WatchOptions{PolicyFiles: []string{userPolicy}},
		NewModel: func() (agent.Model, error) {
			if cfg.Model == "" {
				return nil, errors.New("no model configured: set AGENTLS_MODEL (and OPENAI_BASE_URL for a local server), or run `agentls demo`")
			}
			return openai.New(&openai.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Logger: log, HTTPClient: httpc,
				StallTimeout: cfg.StallTimeout()})
		},
	}
}

// openAudit opens the audit log in the state directory; without one the
// server runs on and says so.
func openAudit(opts *lspserver.Options, getenv func(string) string, log *slog.Logger) io.Closer {
	dir := stateDir(getenv)
	if dir == "" {
		return nil
	}
	audit, closer, err := tools.OpenAuditLog(dir)
	if err != nil {
		log.Warn("No audit log", slog.String("err", err.Error()))
		return nil
	}
	opts.Audit = audit
	return closer
}

// auditHealth is the health line of the audit log for `agentls version`:
// where it is and whether records can be appended to it.
func auditHealth(getenv func(string) string) string {
	dir := stateDir(getenv)
	if dir == "" {
		return "audit log: none (no HOME or XDG_STATE_HOME)"
	}
	path := filepath.Join(dir, "audit.jsonl")
	if err := tools.CheckAuditLog(dir); err != nil {
		return fmt.Sprintf("audit log: %s: NOT WRITABLE: %v", path, err)
	}
	return fmt.Sprintf("audit log: %s (writable)", path)
}

// stdio joins stdin and stdout into the server's stream. Close closes
// stdin, which unblocks the read loop after `exit` even while the client
// keeps its end open; stdout stays open for whatever is still written.
type stdio struct {
	io.Reader
	io.Writer
}

// pollable returns a stdin whose Close interrupts a pending Read: a
// blocking fd 0 is switched to non-blocking mode, so that Go's poller
// serves it. Other readers are returned as they are.
func pollable(r io.Reader) io.Reader {
	if r != os.Stdin {
		return r
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return r
	}
	return os.NewFile(0, "/dev/stdin")
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// serverFlags are the flags the two long-running servers (serve, acp)
// share.
type serverFlags struct {
	logFile, profile *string
	verbose          *bool
}

func newServerFlags(fs *flag.FlagSet) *serverFlags {
	return &serverFlags{
		logFile: fs.String("log", "", "write logs to this file instead of stderr"),
		verbose: fs.Bool("v", false, "debug logging"),
		profile: profileFlag(fs, tools.ProfileEditor, "policy profile: editor, headless or ci"),
	}
}

// startServer opens a server's log and its shared wiring (c.server),
// with one sandbox helper started ahead so that run_command does not wait
// for a process start (issue 4: overhead per call). done closes both.
func (c *cli) startServer(f *serverFlags) (*slog.Logger, *lspserver.Options, func(), error) {
	logw, closeLog, err := c.logWriter(*f.logFile)
	if err != nil {
		return nil, nil, nil, err
	}
	log := newLogger(logw, *f.verbose)
	opts, done := c.server(log, log, *f.profile, &exec.Options{Prestart: true, OnLayerMissing: func(layer, why string) {
		log.Warn("Sandbox layer missing; the others still apply", slog.String("layer", layer), slog.String("why", why))
	}})
	return log, opts, func() { done(); closeLog() }, nil
}

// logWriter is where a server logs: the file at path (appended to,
// created private) or, with no path, stderr; close closes the file.
func (c *cli) logWriter(path string) (w io.Writer, close func(), err error) {
	if path == "" {
		return c.stderr, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

package ext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// Options configures [Start].
type Options struct {
	// Root is the workspace root: the working directory of hooks and stdio
	// servers, and what project trust is recorded for.
	Root string
	// User is the user's config; Project the project's (nil: none).
	User, Project *Config
	// Trust holds the user's decisions about project entries; nil trusts
	// nothing.
	Trust *Store
	// Ask asks the user to trust project entries that are not trusted yet
	// (the editor's prompt); nil means nobody can be asked, and untrusted
	// entries never start (headless runs, call, mcp list).
	Ask tools.Approver
	// AskTimeout bounds that question; zero means 5 minutes.
	AskTimeout time.Duration
	// NoMCP loads the hooks only (vet).
	NoMCP bool
	// Environ is what hooks and servers inherit, scrubbed; nil means
	// os.Environ().
	Environ      []string
	StartTimeout time.Duration
	Logger       *slog.Logger
}

// Extensions are the running hooks and MCP servers of one workspace. Its
// methods are safe for concurrent use.
type Extensions struct {
	hooks *hooks.Set
	mcp   *mcp.Manager // nil with NoMCP
	// Untrusted are the project's entries that did not start because the
	// user has not trusted them (as they are now).
	Untrusted []Entry
	// Warnings are the entries skipped while loading, for the user.
	Warnings []string
	// runs are the command lines, arguments and environment values of
	// the hooks and servers that run (see [Extensions.Runs]).
	runs []string
	// told passes on what goes wrong while they run ([Extensions.OnWarning]).
	told warnings
}

// Start loads the hooks and starts the MCP servers (in parallel) of the
// user config and of the project entries the user trusts, asking through
// o.Ask about the others when it can. It never fails: what cannot start
// is skipped with a warning.
func Start(ctx context.Context, o *Options) *Extensions {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	user, project := o.User, o.Project
	if user == nil {
		user = &Config{}
	}
	if project == nil {
		project = &Config{}
	}
	x := &Extensions{}
	for _, w := range slices.Concat(user.Warnings, project.Warnings) {
		x.Warnings = append(x.Warnings, w)
		o.Logger.Warn("Configuration key ignored", slog.String("why", w))
	}
	entries := projectEntries(o.Root, project)
	trusted := x.resolveTrust(ctx, o, entries)
	// What runs is checked again before each run: a hook's script, or a
	// server's files at its restart, may change after this start (A18).
	trustedHash := map[string]bool{}
	for _, e := range trusted {
		trustedHash[e.Kind+"\x00"+e.Hash] = true
	}
	x.startHooks(o, user, trustedHooks(entries, trustedHash), trustedHash)
	if !o.NoMCP {
		x.startServers(ctx, o, user, project, trusted)
	}
	return x
}

// resolveTrust sorts the project's entries into those the user trusts as
// they are now — asking through o.Ask about the others when it can — and
// the rest, which are kept in x.Untrusted with a warning each.
func (x *Extensions) resolveTrust(ctx context.Context, o *Options, entries []pinnedEntry) (trusted []Entry) {
	for _, e := range entries {
		if t, ok := o.Trust.Trusted(o.Root, e.Entry); ok {
			trusted = append(trusted, t)
		} else {
			x.Untrusted = append(x.Untrusted, e.Entry)
		}
	}
	if len(x.Untrusted) > 0 && o.Ask != nil && askTrust(ctx, o, x.Untrusted) {
		if err := o.Trust.Trust(o.Root, x.Untrusted...); err != nil {
			x.warn(o.Logger, "the trust cannot be recorded: "+err.Error())
		} else {
			var still []Entry
			for _, e := range x.Untrusted {
				if e.Unpinnable == "" {
					trusted = append(trusted, e)
				} else {
					still = append(still, e)
				}
			}
			x.Untrusted = still
		}
	}
	for _, e := range x.Untrusted {
		why := "not trusted as it is now (run `agentls trust`)"
		switch {
		case e.Unpinnable != "":
			why = "what it runs cannot be pinned: " + e.Unpinnable
		case status(o.Trust, o.Root, e) == Changed:
			why = "it changed since you trusted it (run `agentls trust` to review it)"
		}
		x.warn(o.Logger, fmt.Sprintf("project %s %s not started: %s", e.Kind, e.Name, why))
	}
	return trusted
}

// startHooks loads the user's hooks and the trusted project's, each
// project hook checked against its trust again before it runs.
func (x *Extensions) startHooks(o *Options, user *Config, projectHooks hooks.Config, trustedHash map[string]bool) {
	x.runs = append(hookRuns(o.Root, user.Hooks), hookRuns(o.Root, projectHooks)...)
	x.hooks = hooks.New(&hooks.Options{User: user.Hooks, Project: projectHooks, Environ: o.Environ,
		Logger: o.Logger, Warn: x.told.observer, Verify: func(ev hooks.Event, g *hooks.Group, c *hooks.Command) error {
			if !trustedHash["hook\x00"+hookPin(o.Root, ev, g, c).hash] {
				return errChanged
			}
			return nil
		}})
	x.Warnings = append(x.Warnings, x.hooks.Warnings()...)
}

// startServers starts the user's MCP servers and the trusted project's
// (a project server never shadows a user's of its name, B6); a project
// server's command and tool definitions are checked against its trust at
// each start.
func (x *Extensions) startServers(ctx context.Context, o *Options, user, project *Config, trusted []Entry) {
	servers := maps.Clone(user.MCPServers)
	if servers == nil {
		servers = map[string]mcp.ServerConfig{}
	}
	pinned := map[string]Entry{}
	fromProject := map[string]bool{}
	for _, e := range trusted {
		if e.Kind != "mcp" {
			continue
		}
		if _, dup := servers[e.Name]; dup {
			x.warn(o.Logger, fmt.Sprintf("project mcp %s not started: the user config has a server of that name", e.Name))
			continue
		}
		servers[e.Name], pinned[e.Name], fromProject[e.Name] = project.MCPServers[e.Name], e, true
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		sc := servers[name]
		x.runs = append(append(x.runs, sc.Command), sc.Args...)
		for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
			x.runs = append(x.runs, sc.Env[k])
		}
		x.runs = append(x.runs, loads(o.Root, serverWords(&sc))...)
	}
	x.mcp = mcp.Start(ctx, &mcp.Options{Servers: servers, Project: fromProject, Dir: o.Root, Environ: o.Environ,
		StartTimeout: o.StartTimeout, Logger: o.Logger, Warn: x.told.attention,
		Verify: func(server string) error {
			e, ok := pinned[server]
			if !ok {
				return nil // the user's own server
			}
			sc := servers[server]
			if serverPin(o.Root, &sc).hash != e.Hash {
				return errChanged
			}
			return nil
		},
		Accept: func(server, toolsHash string) error {
			e, ok := pinned[server]
			if !ok || e.ToolsHash == toolsHash {
				return nil // the user's own server, or the definitions the user trusted
			}
			return pinTools(ctx, o, e, toolsHash)
		}})
}

func status(s *Store, root string, e Entry) Status {
	_, st := s.Lookup(root, e)
	return st
}

// errChanged is why a trusted project entry does not run after all: what
// it runs changed since its trust was checked.
var errChanged = errors.New("what it runs changed since you trusted it (run `agentls trust` to review it)")

// pinTools pins a trusted project server's tool definitions: at its first
// start after the user trusted its command, or when they changed and the
// user trusts them again.
func pinTools(ctx context.Context, o *Options, e Entry, toolsHash string) error {
	if e.ToolsHash != "" {
		changed := e
		changed.What = e.What + " (its tool definitions changed since you trusted it)"
		if o.Ask == nil || !askTrust(ctx, o, []Entry{changed}) {
			return errors.New("its tool definitions changed since you trusted it (run `agentls trust` to review them)")
		}
	}
	e.ToolsHash = toolsHash
	if err := o.Trust.Trust(o.Root, e); err != nil {
		return fmt.Errorf("its tool definitions cannot be pinned: %v", err)
	}
	return nil
}

func (x *Extensions) warn(log *slog.Logger, w string) {
	x.Warnings = append(x.Warnings, w)
	log.Warn("Extension skipped", slog.String("why", w))
}

// askTrust asks the user once about entries; only an approval trusts.
func askTrust(ctx context.Context, o *Options, entries []Entry) bool {
	timeout := o.AskTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var b strings.Builder
	b.WriteString("This workspace declares commands that run on your machine, outside the sandbox:\n")
	v := sandbox.Visible // repository text, shown to a person (T22)
	for _, e := range entries {
		fmt.Fprintf(&b, "- %s %s: %s", e.Kind, v(e.Name), v(e.What))
		if e.Matcher != "" {
			fmt.Fprintf(&b, " (matcher %s)", v(e.Matcher))
		}
		if _, st := o.Trust.Lookup(o.Root, e); st == Changed {
			b.WriteString(" — changed since you trusted it")
		}
		b.WriteString("\n")
		for _, kv := range e.Env {
			fmt.Fprintf(&b, "    env %s\n", v(kv))
		}
		for _, f := range e.Files {
			fmt.Fprintf(&b, "    runs %s\n", v(f))
		}
		if e.Unpinnable != "" {
			fmt.Fprintf(&b, "    cannot be pinned (%s): it does not start even if you trust it\n", e.Unpinnable)
		}
	}
	b.WriteString("Trust and run them? (Any change to them, or to the workspace files they run, asks again.)")
	resp, err := o.Ask.Approve(ctx, &tools.ApprovalRequest{Tool: "agentls_trust", Risk: tools.RiskExecute, Question: b.String()})
	return err == nil && (resp.Answer == tools.AnswerApprove || resp.Answer == tools.AnswerAlways)
}

// ProjectEntries lists what the project declares, each with the hash its
// trust is pinned to (see [Entry.Hash]; the workspace files are read
// under root), in a stable order.
func ProjectEntries(root string, project *Config) []Entry {
	var out []Entry
	for _, e := range projectEntries(root, project) {
		out = append(out, e.Entry)
	}
	return out
}

// pinnedEntry is an entry and, for a hook, where it is in the config.
type pinnedEntry struct {
	Entry
	event hooks.Event
	group hooks.Group
	hook  hooks.Command
}

func projectEntries(root string, project *Config) []pinnedEntry {
	var out []pinnedEntry
	for _, ev := range slices.Sorted(maps.Keys(project.Hooks)) {
		for _, g := range project.Hooks[ev] {
			for _, c := range g.Hooks {
				p := hookPin(root, ev, &g, &c)
				out = append(out, pinnedEntry{Entry: Entry{Kind: "hook", Name: string(ev), Hash: p.hash, What: c.Command,
					Matcher: g.Matcher, Files: p.files, Unpinnable: p.why}, event: ev, group: g, hook: c})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(project.MCPServers)) {
		c := project.MCPServers[name]
		what := c.URL
		if what == "" {
			what = describe(c.Command, c.Args)
		}
		var env []string
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			env = append(env, k+"="+c.Env[k])
		}
		if len(env) > 0 {
			what += " (env: " + strings.Join(slices.Sorted(maps.Keys(c.Env)), ", ") + ")"
		}
		p := serverPin(root, &c)
		out = append(out, pinnedEntry{Entry: Entry{Kind: "mcp", Name: name, Hash: p.hash, What: what, Env: env, Files: p.files,
			Unpinnable: p.why}})
	}
	return out
}

// trustedHooks keeps the project hooks whose entries are trusted.
func trustedHooks(entries []pinnedEntry, trusted map[string]bool) hooks.Config {
	out := hooks.Config{}
	for _, e := range entries {
		if e.Kind != "hook" || !trusted["hook\x00"+e.Hash] {
			continue
		}
		g := e.group
		g.Hooks = []hooks.Command{e.hook}
		out[e.event] = append(out[e.event], g)
	}
	return out
}

// Problems returns the warnings of loading: entries skipped, unknown
// keys (the editor shows them to the user).
func (x *Extensions) Problems() []string {
	if x == nil {
		return nil
	}
	return x.Warnings
}

// Runs returns the command lines, arguments and environment values of
// every hook and MCP server that runs, and the workspace files they run or
// load (their scripts; the start-up files of the directories they name,
// such as a PYTHONPATH directory's sitecustomize.py): the workspace files
// they name are held when a command changes them (S10), since they run on
// the host.
func (x *Extensions) Runs() []string {
	if x == nil {
		return nil
	}
	return x.runs
}

// hookRuns lists the command lines of cfg and the workspace files they
// run or load.
func hookRuns(root string, cfg hooks.Config) []string {
	var out []string
	for _, ev := range slices.Sorted(maps.Keys(cfg)) {
		for _, g := range cfg[ev] {
			for _, c := range g.Hooks {
				out = append(out, c.Command)
				out = append(out, loads(root, named(hookWords(root, c.Command)))...)
			}
		}
	}
	return out
}

// Hooks returns the hooks for the gateway; nil when there are none.
func (x *Extensions) Hooks() tools.Hooks {
	if x == nil || x.hooks.Len() == 0 {
		return nil
	}
	return x.hooks
}

// Tools returns the tools of the MCP servers still running.
func (x *Extensions) Tools() []*tools.Tool {
	if x == nil || x.mcp == nil {
		return nil
	}
	return x.mcp.Tools()
}

// Servers returns the status of every configured MCP server.
func (x *Extensions) Servers() []mcp.Status {
	if x == nil || x.mcp == nil {
		return nil
	}
	return x.mcp.Servers()
}

// SessionStart runs the SessionStart hooks of a run.
func (x *Extensions) SessionStart(ctx context.Context, sessionID, cwd string) {
	if x != nil {
		x.hooks.SessionStart(ctx, sessionID, cwd)
	}
}

// Stop runs the Stop hooks of a run that ended with status.
func (x *Extensions) Stop(ctx context.Context, sessionID, cwd, status string) {
	if x != nil {
		x.hooks.Stop(ctx, sessionID, cwd, status)
	}
}

// Close stops the MCP servers.
func (x *Extensions) Close() error {
	if x == nil || x.mcp == nil {
		return nil
	}
	return x.mcp.Close()
}

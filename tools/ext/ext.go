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
	entries := ProjectEntries(project)
	var trusted []Entry
	for _, e := range entries {
		if t, ok := o.Trust.Trusted(o.Root, e); ok {
			trusted = append(trusted, t)
		} else {
			x.Untrusted = append(x.Untrusted, e)
		}
	}
	if len(x.Untrusted) > 0 && o.Ask != nil && askTrust(ctx, o, x.Untrusted) {
		if err := o.Trust.Trust(o.Root, x.Untrusted...); err != nil {
			x.warn(o.Logger, "the trust cannot be recorded: "+err.Error())
		} else {
			trusted, x.Untrusted = append(trusted, x.Untrusted...), nil
		}
	}
	for _, e := range x.Untrusted {
		x.warn(o.Logger, fmt.Sprintf("project %s %s not started: not trusted as it is now (run `agentls trust`)", e.Kind, e.Name))
	}
	x.runs = append(hookRuns(user.Hooks), hookRuns(trustedHooks(project.Hooks, trusted))...)
	x.hooks = hooks.New(&hooks.Options{User: user.Hooks, Project: trustedHooks(project.Hooks, trusted), Environ: o.Environ,
		Logger: o.Logger})
	x.Warnings = append(x.Warnings, x.hooks.Warnings()...)
	if o.NoMCP {
		return x
	}
	servers := maps.Clone(user.MCPServers)
	if servers == nil {
		servers = map[string]mcp.ServerConfig{}
	}
	pinned := map[string]Entry{}
	for _, e := range trusted {
		if e.Kind != "mcp" {
			continue
		}
		if _, dup := servers[e.Name]; dup {
			x.warn(o.Logger, fmt.Sprintf("project mcp %s not started: the user config has a server of that name", e.Name))
			continue
		}
		servers[e.Name], pinned[e.Name] = project.MCPServers[e.Name], e
	}
	for _, sc := range servers {
		x.runs = append(append(x.runs, sc.Command), sc.Args...)
		for _, v := range sc.Env {
			x.runs = append(x.runs, v)
		}
	}
	x.mcp = mcp.Start(ctx, &mcp.Options{Servers: servers, Dir: o.Root, Environ: o.Environ, StartTimeout: o.StartTimeout,
		Logger: o.Logger, Accept: func(server, toolsHash string) error {
			e, ok := pinned[server]
			if !ok || e.ToolsHash == toolsHash {
				return nil // the user's own server, or the definitions the user trusted
			}
			return pinTools(ctx, o, e, toolsHash)
		}})
	return x
}

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
	for _, e := range entries {
		fmt.Fprintf(&b, "- %s %s: %s\n", e.Kind, e.Name, e.What)
	}
	b.WriteString("Trust and run them? (Any change to them asks again.)")
	resp, err := o.Ask.Approve(ctx, &tools.ApprovalRequest{Tool: "agentls_trust", Risk: tools.RiskExecute, Question: b.String()})
	return err == nil && (resp.Answer == tools.AnswerApprove || resp.Answer == tools.AnswerAlways)
}

// ProjectEntries lists what the project declares, each with the hash its
// trust is pinned to, in a stable order.
func ProjectEntries(project *Config) []Entry {
	var out []Entry
	for _, ev := range slices.Sorted(maps.Keys(project.Hooks)) {
		for _, g := range project.Hooks[ev] {
			for _, c := range g.Hooks {
				out = append(out, Entry{Kind: "hook", Name: string(ev), Hash: hookHash(ev, g.Matcher, c), What: c.Command, Matcher: g.Matcher})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(project.MCPServers)) {
		c := project.MCPServers[name]
		what := c.URL
		if what == "" {
			what = describe(c.Command, c.Args)
		}
		if len(c.Env) > 0 {
			what += " (env: " + strings.Join(slices.Sorted(maps.Keys(c.Env)), ", ") + ")"
		}
		out = append(out, Entry{Kind: "mcp", Name: name, Hash: c.CommandHash(), What: what})
	}
	return out
}

func hookHash(ev hooks.Event, matcher string, c hooks.Command) string {
	return hashJSON([]any{ev, matcher, c.Type, c.Command, c.Timeout, c.Policy})
}

// trustedHooks keeps the project hooks whose entries are trusted.
func trustedHooks(cfg hooks.Config, trusted []Entry) hooks.Config {
	out := hooks.Config{}
	for ev, groups := range cfg {
		for _, g := range groups {
			kept := hooks.Group{Matcher: g.Matcher}
			for _, c := range g.Hooks {
				h := hookHash(ev, g.Matcher, c)
				if slices.ContainsFunc(trusted, func(e Entry) bool { return e.Kind == "hook" && e.Hash == h }) {
					kept.Hooks = append(kept.Hooks, c)
				}
			}
			if len(kept.Hooks) > 0 {
				out[ev] = append(out[ev], kept)
			}
		}
	}
	return out
}

// Runs returns the command lines, arguments and environment values of
// every hook and MCP server that runs: the workspace files they name are
// held when a command changes them (S10), since they run on the host.
func (x *Extensions) Runs() []string {
	if x == nil {
		return nil
	}
	return x.runs
}

// hookRuns lists the command lines of cfg.
func hookRuns(cfg hooks.Config) []string {
	var out []string
	for _, groups := range cfg {
		for _, g := range groups {
			for _, c := range g.Hooks {
				out = append(out, c.Command)
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

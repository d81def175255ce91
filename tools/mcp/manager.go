package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sbexec "github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// Options configures [Start].
type Options struct {
	// Servers are the configured servers by name.
	Servers map[string]ServerConfig
	// Dir is the working directory of stdio servers: the workspace root.
	Dir string
	// Environ is what stdio servers' environment is built from,
	// os.Environ() when nil; it is scrubbed by [sbexec.HostEnv], and each
	// server's configured env is added.
	Environ []string
	// StartTimeout bounds each server's start, initialization and tool
	// listing; zero means [DefaultStartTimeout].
	StartTimeout time.Duration
	// Accept, when set, is asked before a server's tools are offered, with
	// the hash of its tool definitions ([Status.ToolsHash]); an error
	// stops the server and says why (a project server whose definitions
	// differ from what the user trusted, A17).
	Accept func(server, toolsHash string) error
	// Verify, when set, is asked before every start of a server, its
	// restart included; an error keeps it from running and says why (a
	// project server whose files or settings changed since the user
	// trusted them, A18).
	Verify func(server string) error
	// Project names the servers a project declared (the others are the
	// user's). Tool names are unique: a project server whose name
	// normalizes to the name of a user's server (Tickets and tickets both
	// give mcp__tickets__…) or of a project server before it does not
	// start, and whatever name clash is left is won by the user's server;
	// the loser's tool is dropped with a warning (B6).
	Project map[string]bool
	Logger  *slog.Logger
	// Warn, when set, is told in a sentence for the user about every
	// server that did not start, crashed, or whose tools were removed
	// (B6), with the context it happened in: a call's, or the start's.
	Warn func(ctx context.Context, msg string)
}

// Manager supervises the servers of one session. It is safe for
// concurrent use.
type Manager struct {
	servers      []*server // sorted by name
	dir          string
	env          []string
	startTimeout time.Duration
	verify       func(server string) error
	log          *slog.Logger
	warn         func(ctx context.Context, msg string) // nil: none
	// ready is closed once every server has started or failed; until then
	// [Manager.Tools] and [Manager.Servers] wait (issue 26: a run that
	// needs no MCP tool never waits for a server). cancel stops the
	// starts still under way.
	ready  chan struct{}
	cancel context.CancelFunc
}

// Start starts every enabled server of o in parallel, in the background,
// and returns at once: [Manager.Tools] and [Manager.Servers] wait for the
// starts (each bounded by the start timeout), so only a run that needs
// the servers waits for them. A server that fails is reported in
// [Manager.Servers] and logged; it never fails the others or the session.
// The starts outlive ctx's cancellation (a run that ends does not stop
// them); [Manager.Close] stops them.
func Start(ctx context.Context, o *Options) *Manager {
	if o == nil {
		o = &Options{}
	}
	m := &Manager{dir: o.Dir, startTimeout: o.StartTimeout, verify: o.Verify, log: o.Logger, warn: o.Warn, ready: make(chan struct{})}
	if m.startTimeout <= 0 {
		m.startTimeout = DefaultStartTimeout
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	m.env = sbexec.HostEnv(environ)
	for _, name := range slices.Sorted(maps.Keys(o.Servers)) {
		m.servers = append(m.servers, &server{name: name, cfg: o.Servers[name], m: m, project: o.Project[name]})
	}
	// Names are taken by the user's servers first (a disabled one too: the
	// user's policy may name its tools), then the project's, each by name.
	taken := map[string]*server{} // normalized name → the server that has it
	for _, s := range m.byPrecedence() {
		key := namePart(s.name)
		if other, dup := taken[key]; dup && s.project && key != "" {
			whose := "the user's server"
			if other.project {
				whose = "the project server"
			}
			s.shadows = fmt.Sprintf("its tools would be named as those of %s %s (mcp__%s__…)", whose, cut(other.name, 64), key)
			continue
		}
		if _, dup := taken[key]; !dup {
			taken[key] = s
		}
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	go func() {
		defer close(m.ready)
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Go(func() { s.start(bg, o.Accept) })
		}
		wg.Wait()
	}()
	return m
}

// wait waits until every server has started or failed.
func (m *Manager) wait() { <-m.ready }

// start connects s for the first time.
func (s *server) start(ctx context.Context, accept func(string, string) error) {
	log := s.m.log.With(slog.String("server", s.name))
	fail := func(why string) {
		s.mu.Lock()
		s.state, s.why = StateFailed, why
		s.mu.Unlock()
		log.Warn("MCP server not started; going on without it", slog.String("why", why))
		s.m.tell(ctx, fmt.Sprintf("MCP server %s did not start (%s); going on without its tools", cut(s.name, 64), why))
	}
	switch {
	case s.cfg.Disabled:
		s.state = StateDisabled
		return
	case namePart(s.name) == "":
		fail("its name has no letters or digits")
		return
	case s.shadows != "":
		fail(s.shadows)
		return
	}
	if why := s.cfg.validate(); why != "" {
		fail(why)
		return
	}
	if s.m.verify != nil {
		if err := s.m.verify(s.name); err != nil {
			fail(err.Error())
			return
		}
	}
	c, defs, err := s.connect(ctx)
	if err != nil && ctx.Err() != nil { // closed while starting
		s.mu.Lock()
		s.state, s.why = StateFailed, "stopped before it started"
		s.mu.Unlock()
		return
	}
	if err != nil {
		fail(err.Error())
		return
	}
	h := defsHash(defs)
	if accept != nil {
		if err := accept(s.name, h); err != nil {
			c.close()
			fail(err.Error())
			return
		}
	}
	s.mu.Lock()
	s.conn, s.defs, s.defsHash, s.state = c, defs, h, StateRunning
	s.mu.Unlock()
	log.Info("MCP server started", slog.Int("tools", len(defs)))
}

// Tools returns the tools of the servers still running, sorted by name;
// a tool whose name or schema cannot be used is skipped with a warning.
func (m *Manager) Tools() []*tools.Tool {
	m.wait()
	var out []*tools.Tool
	seen := map[string]bool{}
	for _, s := range m.byPrecedence() {
		s.mu.Lock()
		running, defs := s.state == StateRunning, s.defs
		s.mu.Unlock()
		if !running {
			continue
		}
		for _, d := range defs {
			t, err := s.tool(d)
			if err == nil && seen[t.Name] {
				err = fmt.Errorf("its name %s is taken by another tool", t.Name)
				if s.project {
					err = fmt.Errorf("its name %s is taken by another tool; the user's servers' tools come first", t.Name)
				}
			}
			if err != nil {
				m.log.Warn("MCP tool skipped", slog.String("server", s.name), slog.String("tool", cut(d.Name, 64)),
					slog.String("why", err.Error()))
				continue
			}
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *tools.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// byPrecedence is the servers in the order they take tool names: the
// user's first, then the project's, each by name (B6).
func (m *Manager) byPrecedence() []*server {
	out := slices.Clone(m.servers)
	slices.SortStableFunc(out, func(a, b *server) int {
		switch {
		case a.project == b.project:
			return 0
		case b.project:
			return -1
		}
		return 1
	})
	return out
}

// Close stops the starts still under way, ends every session and kills
// what is left of the servers' process groups.
func (m *Manager) Close() error {
	m.cancel()
	m.wait()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		s.mu.Lock()
		c := s.conn
		s.conn = nil
		s.mu.Unlock()
		if c != nil {
			wg.Go(c.close)
		}
	}
	wg.Wait()
	return nil
}

// lookPath finds command the way a shell would with the server's PATH; a
// relative path with a slash is taken from dir.
func lookPath(command string, env []string, dir string) (string, error) {
	if strings.Contains(command, "/") {
		if !filepath.IsAbs(command) {
			command = filepath.Join(dir, command)
		}
		if fi, err := os.Stat(command); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("command %s: not found or not executable", cut(command, 200))
		}
		return command, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // never the current directory
		}
		p := filepath.Join(d, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %s: %w", cut(command, 200), exec.ErrNotFound)
}

// tell passes what happened to a server on to the user ([Options.Warn]).
func (m *Manager) tell(ctx context.Context, msg string) {
	if m.warn != nil {
		m.warn(ctx, msg)
	}
}

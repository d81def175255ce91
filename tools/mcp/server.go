package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is where a server stands.
type State string

// The states of a server.
const (
	StateRunning  State = "running"
	StateFailed   State = "failed"   // did not start; never offered
	StateRemoved  State = "removed"  // crashed again, or changed; its tools are gone
	StateDisabled State = "disabled" // "disabled": true in the config
)

// server is one configured MCP server and its connection.
type server struct {
	name string
	cfg  ServerConfig
	m    *Manager
	// project is a server a project declared; shadows says why it may
	// not start: its tool names would be another server's (B6).
	project bool
	shadows string

	mu       sync.Mutex // guards the fields below
	conn     *conn      // the live connection; nil when not connected
	state    State
	why      string // why it failed or was removed
	restarts int
	defs     []*sdk.Tool // the tool definitions of the first start
	defsHash string
}

// conn is one connection to a server: a session, and for stdio servers
// the process group and the end of its stderr.
type conn struct {
	sess   *sdk.ClientSession
	closed chan struct{} // closed when the session has ended
	pgid   int           // stdio: the server's process group; 0 otherwise
	stderr *tail
}

func (c *conn) dead() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// close ends the session and kills what is left of the process group.
func (c *conn) close() {
	_ = c.sess.Close()
	if c.pgid > 0 {
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	}
}

// connect starts or dials the server, initializes the session and lists
// its tools, all within the start timeout.
func (s *server) connect(ctx context.Context) (*conn, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.m.startTimeout)
	defer cancel()
	c := &conn{closed: make(chan struct{}), stderr: &tail{}}
	t, err := s.transport(c)
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.m.log.Warn("MCP server changed its tool list; the change is not used until the next session",
				slog.String("server", s.name))
		},
	})
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		if c.pgid > 0 {
			_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
		}
		return nil, nil, s.startError(ctx, c, err)
	}
	c.sess = sess
	go func() {
		_ = sess.Wait()
		close(c.closed)
	}()
	var defs []*sdk.Tool
	for tool, err := range sess.Tools(ctx, nil) {
		if err != nil {
			c.close()
			return nil, nil, s.startError(ctx, c, fmt.Errorf("listing tools: %w", err))
		}
		if len(defs) == maxTools {
			s.m.log.Warn("MCP server has too many tools; the rest are skipped", slog.String("server", s.name),
				slog.Int("kept", maxTools))
			break
		}
		defs = append(defs, tool)
	}
	return c, defs, nil
}

// startError describes a failed start, with the end of the server's
// stderr, which is the user's own program's output.
func (s *server) startError(ctx context.Context, c *conn, err error) error {
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %s", s.m.startTimeout)
	}
	if t := c.stderr.String(); t != "" {
		return fmt.Errorf("%v; stderr: %s", err, t)
	}
	return err
}

// transport returns the SDK transport of the server's config.
func (s *server) transport(c *conn) (sdk.Transport, error) {
	if s.cfg.kind() == "http" {
		client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: s.cfg.Headers}}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, DisableStandaloneSSE: true, MaxRetries: 1}, nil
	}
	env := slices.Clone(s.m.env)
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+v)
	}
	path, err := lookPath(s.cfg.Command, env, s.m.dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, s.cfg.Args...)
	cmd.Dir, cmd.Env, cmd.Stderr = s.m.dir, env, c.stderr
	// Its own process group: the terminal's ^C does not reach it, and
	// close kills whatever it started (npx starts node, node may start more).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &startHook{CommandTransport: sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, conn: c}, nil
}

// startHook records the process group once the SDK started the command.
type startHook struct {
	sdk.CommandTransport
	conn *conn
}

func (t *startHook) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.CommandTransport.Connect(ctx)
	if p := t.Command.Process; p != nil {
		t.conn.pgid = p.Pid
	}
	return c, err
}

// headerTransport adds the configured headers (Authorization, …) to every
// request to a streamable-HTTP server.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tail keeps the last 2 KiB written to it: a server's stderr.
type tail struct {
	mu sync.Mutex // guards b
	b  []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > tailSize {
		t.b = slices.Clone(t.b[len(t.b)-tailSize:])
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return cut(string(trimSpace(t.b)), tailSize)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// errServerGone is returned by session when the server's tools are removed.
var errServerGone = errors.New("server removed")

// session returns a live session, restarting a server that died while
// idle (which counts as its crash). It fails with errServerGone once the
// server's tools are removed.
func (s *server) session(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateRunning {
		return nil, errServerGone
	}
	if s.conn != nil && !s.conn.dead() {
		return s.conn, nil
	}
	s.crashedLocked(ctx, s.conn)
	if s.state != StateRunning {
		return nil, errServerGone
	}
	return s.conn, nil
}

// crashed handles the crash of c: the first one restarts the server, a
// second one (or a failed restart, or changed tool definitions) removes
// its tools. A crash of a connection already replaced is not counted
// again. It reports whether the server is still running.
func (s *server) crashed(ctx context.Context, c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == c {
		s.crashedLocked(ctx, c)
	}
	return s.state == StateRunning
}

func (s *server) crashedLocked(ctx context.Context, c *conn) {
	log := s.m.log.With(slog.String("server", s.name))
	why := "crashed"
	if c != nil {
		if t := c.stderr.String(); t != "" {
			why += "; stderr: " + t
		}
		c.close()
	}
	s.conn = nil
	if s.restarts >= 1 {
		s.remove(log, "crashed again after its restart")
		return
	}
	s.restarts++
	log.Warn("MCP server crashed; restarting it once", slog.String("why", why))
	if s.m.verify != nil {
		if err := s.m.verify(s.name); err != nil {
			s.remove(log, "crashed, and is not restarted: "+err.Error())
			return
		}
	}
	nc, defs, err := s.connect(context.WithoutCancel(ctx))
	if err != nil {
		s.remove(log, "crashed, and its restart failed: "+err.Error())
		return
	}
	if h := defsHash(defs); h != s.defsHash {
		nc.close()
		s.remove(log, "came back from its restart with other tool definitions")
		return
	}
	s.conn = nc
	log.Info("MCP server restarted")
}

func (s *server) remove(log *slog.Logger, why string) {
	s.state, s.why = StateRemoved, why
	log.Warn("MCP server's tools removed", slog.String("why", why))
}

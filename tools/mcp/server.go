package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	// recycled: conn was dropped after a call timed out or the server
	// sent what is no message; the next call reconnects, which is no
	// restart (issue 26).
	recycled bool
	defs     []*sdk.Tool // the tool definitions of the first start
	defsHash string
}

// conn is one connection to a server: a session, and for stdio servers
// the process group and the end of its stderr.
type conn struct {
	sess   *sdk.ClientSession
	closed chan struct{} // closed when the session has ended
	pgid   atomic.Int64  // stdio: the server's process group; 0 otherwise
	stderr *tail

	mu    sync.Mutex // guards fault
	fault error      // the first error reading from a live stdio server
}

// setFault records why reading from the server failed.
func (c *conn) setFault(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fault == nil {
		c.fault = err
	}
}

// garbled says what the server sent that ended the connection, when it
// was no crash: a message over the SDK's line limit, or bytes that are no
// JSON-RPC message. It is "" when the server closed its end (it exited).
func (c *conn) garbled() string {
	c.mu.Lock()
	err := c.fault
	c.mu.Unlock()
	switch {
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed):
		return ""
	case strings.Contains(err.Error(), "maximum line length"):
		return fmt.Sprintf("sent an answer over %d MiB, more than one MCP message may be (%d bytes)",
			sdk.DefaultMaxLineLength>>20, sdk.DefaultMaxLineLength)
	}
	return "sent an answer that is no JSON-RPC message (" + cut(err.Error(), 200) + ")"
}

func (c *conn) dead() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// kill kills the process group first, then ends the session: the server
// is not asked to stop (it may be stuck).
func (c *conn) kill() {
	c.killGroup()
	_ = c.sess.Close()
}

// killGroup kills what is left of a stdio server's process group.
func (c *conn) killGroup() {
	if pgid := int(c.pgid.Load()); pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// close ends the session and kills what is left of the process group.
func (c *conn) close() {
	_ = c.sess.Close()
	c.killGroup()
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
	// A server that does not answer in time is killed at once, not asked
	// to stop (the SDK would wait a second for it to exit).
	stop := context.AfterFunc(ctx, c.killGroup)
	defer stop()
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		c.killGroup()
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
		t.conn.pgid.Store(int64(p.Pid))
	}
	if err != nil {
		return nil, err
	}
	return watched{Connection: c, conn: t.conn}, nil
}

// watched records the error that ends reading from a stdio server, so
// that an oversized or garbled answer is told from a crash.
type watched struct {
	sdk.Connection
	conn *conn
}

func (w watched) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := w.Connection.Read(ctx)
	if err != nil && ctx.Err() == nil {
		w.conn.setFault(err)
	}
	return m, err
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
	if s.conn == nil && s.recycled {
		s.recycled = false
		s.reconnectLocked(ctx, s.m.log.With(slog.String("server", s.name)), "its connection was reset, and reconnecting failed")
	} else {
		s.crashedLocked(ctx, s.conn)
	}
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
		s.remove(ctx, log, "crashed again after its restart")
		return
	}
	s.restarts++
	log.Warn("MCP server crashed; restarting it once", slog.String("why", why))
	s.m.tell(ctx, fmt.Sprintf("MCP server %s %s; restarting it once", cut(s.name, 64), why))
	if s.reconnectLocked(ctx, log, "crashed, and its restart failed") {
		log.Info("MCP server restarted")
	}
}

// reconnectLocked connects s again after its connection ended; failing
// says why, after failed, and removes its tools.
func (s *server) reconnectLocked(ctx context.Context, log *slog.Logger, failed string) bool {
	if s.m.verify != nil {
		if err := s.m.verify(s.name); err != nil {
			s.remove(ctx, log, failed+": "+err.Error())
			return false
		}
	}
	nc, defs, err := s.connect(context.WithoutCancel(ctx))
	if err != nil {
		s.remove(ctx, log, failed+": "+err.Error())
		return false
	}
	if h := defsHash(defs); h != s.defsHash {
		nc.close()
		s.remove(ctx, log, "came back with other tool definitions")
		return false
	}
	s.conn = nc
	return true
}

// recycle drops c after a call on it timed out or the server sent what
// is no message: the server is killed, and the next call connects again
// without counting a crash (a timed-out server may still be busy with the
// old call and would make every later call wait the full timeout too).
func (s *server) recycle(c *conn) {
	s.mu.Lock()
	mine := s.conn == c
	if mine {
		s.conn, s.recycled = nil, true
	}
	s.mu.Unlock()
	if mine {
		s.m.log.Warn("MCP server's connection reset", slog.String("server", s.name))
		c.kill()
	}
}

func (s *server) remove(ctx context.Context, log *slog.Logger, why string) {
	s.state, s.why = StateRemoved, why
	log.Warn("MCP server's tools removed", slog.String("why", why))
	s.m.tell(ctx, fmt.Sprintf("MCP server %s's tools were removed: %s", cut(s.name, 64), why))
}

// Package lsptest owns a fake LSP client for tests of lspserver. It starts
// the real server in-process over [net.Pipe], records every message the
// server sends (requests and notifications, in wire order), answers the
// server's requests (workspace/applyEdit, window/showMessageRequest,
// agentls/saveDocuments, window/workDoneProgress/create, …) through hooks,
// and helps tests send requests and notifications and wait for what the
// server says.
//
// It follows gopls's fake editor (ClientHooks, SetApplyEditHandler) and
// net/http/httptest (Close waits for the server): a test configures
// handlers, drives the connection and inspects the log; it never mocks the
// server. It is imported only from tests.
//
// The client's own calls use string IDs ("lsptest-1", "lsptest-2", …) that
// are known before the call is sent, so a test can cancel one with
// [Client.CancelRequest] while it runs. Server requests are answered
// concurrently, so a handler may itself send notifications or calls (a
// didChange before it answers applyEdit); the context it gets is cancelled
// when the server sends $/cancelRequest for that request or the client
// closes.
package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// Kind says what a recorded [Message] is.
type Kind string

// The kinds of recorded messages.
const (
	KindRequest      Kind = "request"      // server → client call
	KindNotification Kind = "notification" // server → client notification
	KindResponse     Kind = "response"     // server's answer to one of our calls
)

// Message is one message the server sent, as recorded in wire order.
type Message struct {
	Seq    int    // position in the log, from 0
	Kind   Kind   // request, notification or response
	Method string // empty for responses
	// ID is the request's ID as JSON text (42 or "x"); empty for
	// notifications.
	ID     string
	Params json.RawMessage // params of a request or notification
	Result json.RawMessage // result of a response
	Err    *jsonrpc2.Error // error of a response
	At     time.Time
}

// Handler answers one server→client request. The result is marshalled as
// JSON; a returned *jsonrpc2.Error goes to the server as is.
type Handler func(ctx context.Context, params json.RawMessage) (result any, err error)

// Options configures a [Client].
type Options struct {
	// Server configures the server under test; nil means defaults (which
	// include no model).
	Server *lspserver.Options
	// Handlers answer server requests by method. A method without a
	// handler gets the default answer: null for
	// window/workDoneProgress/create and window/showMessageRequest (a
	// deny), {"applied": false} for workspace/applyEdit, and
	// MethodNotFound for anything else.
	Handlers map[string]Handler
	// OnNotification, when set, is called on the read loop for every
	// notification the server sends, after it is recorded. It must not
	// block.
	OnNotification func(m Message)
}

// Client is a fake editor connected to an in-process server.
type Client struct {
	tb     testing.TB
	conn   jsonrpc2.Conn
	stream *stream
	pipe   net.Conn
	ctx    context.Context // handlers' base context
	cancel context.CancelFunc
	onNote func(Message)

	serveDone chan struct{}
	serveErr  error // set before serveDone is closed

	mu       sync.Mutex // guards the fields below
	log      []Message
	changed  chan struct{} // closed and replaced on every new message
	handlers map[string]Handler
	inflight map[string]context.CancelFunc // server requests being answered, by ID
	pending  map[string]*Pending           // our calls waiting for their response
	seq      int
	closed   bool
}

// New starts the server with opts.Server over a pipe and connects a client
// to it. It does not initialize the connection (see [Client.Initialize]). The
// client is closed at the end of the test; [Client.Close] may be called
// earlier.
func New(tb testing.TB, opts *Options) *Client {
	tb.Helper()
	if opts == nil {
		opts = &Options{}
	}
	srvSide, cliSide := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		tb:        tb,
		pipe:      cliSide,
		ctx:       ctx,
		cancel:    cancel,
		onNote:    opts.OnNotification,
		serveDone: make(chan struct{}),
		changed:   make(chan struct{}),
		handlers:  make(map[string]Handler),
		inflight:  make(map[string]context.CancelFunc),
		pending:   make(map[string]*Pending),
	}
	for m, h := range opts.Handlers {
		c.handlers[m] = h
	}
	go func() {
		defer close(c.serveDone)
		c.serveErr = lspserver.Serve(context.Background(), srvSide, opts.Server)
	}()
	c.stream = &stream{inner: jsonrpc2.NewHeaderStream(cliSide), c: c}
	c.conn = jsonrpc2.NewConn(c.stream)
	c.conn.Go(ctx, c.handle)
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("lsptest: close: %v", err)
		}
		if tb.Failed() {
			tb.Logf("lsptest: server → client messages:\n%s", c.WireLog())
		}
	})
	return c
}

// Handle sets the handler of server requests with the given method,
// replacing any earlier one; a nil h restores the default answer.
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.handlers, method)
		return
	}
	c.handlers[method] = h
}

// NeverAnswer is a [Handler] that answers only when the server cancels the
// request or the client closes, with an error.
func NeverAnswer(ctx context.Context, _ json.RawMessage) (any, error) {
	<-ctx.Done()
	return nil, jsonrpc2.NewError(lspserver.CodeRequestCancelled, "lsptest: never answered")
}

// Reply is a [Handler] that always answers with v.
func Reply(v any) Handler {
	return func(context.Context, json.RawMessage) (any, error) { return v, nil }
}

// InitializeParams returns initialize params for a workspace at root with
// the given client capabilities (nil means none). The capabilities are
// plain JSON objects, so that a test can send what a real editor sends,
// unknown members included.
func InitializeParams(root string, capabilities map[string]any) map[string]any {
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	return map[string]any{
		"processId":    nil,
		"rootUri":      FileURI(root),
		"capabilities": capabilities,
		"clientInfo":   map[string]any{"name": "lsptest"},
	}
}

// FileURI returns the file URI of an absolute path.
func FileURI(path string) string { return uri.File(path).String() }

// Initialize sends initialize with params and then initialized, and
// returns the initialize result.
func (c *Client) Initialize(ctx context.Context, params any) (json.RawMessage, error) {
	var res json.RawMessage
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	if err := c.Notify(ctx, "initialized", &protocol.InitializedParams{}); err != nil {
		return nil, err
	}
	return res, nil
}

// Pending is a call of ours that may still be running.
type Pending struct {
	// ID is the call's JSON-RPC ID, a string.
	ID     string
	Method string
	done   chan struct{}
	result json.RawMessage
	err    error
}

// Done is closed when the response arrived or the connection broke.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Result returns the response; it blocks until [Pending.Done] is closed.
// An error response is a *jsonrpc2.Error.
func (p *Pending) Result() (json.RawMessage, error) {
	<-p.done
	return p.result, p.err
}

// Wait waits at most d for the response.
func (p *Pending) Wait(d time.Duration) (json.RawMessage, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return p.result, p.err
	case <-t.C:
		return nil, fmt.Errorf("lsptest: no response to %s (id %q) within %v", p.Method, p.ID, d)
	}
}

// Go sends a request without waiting for its response.
func (c *Client) Go(ctx context.Context, method string, params any) (*Pending, error) {
	raw, err := marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("lsptest: client closed")
	}
	c.seq++
	p := &Pending{ID: "lsptest-" + strconv.Itoa(c.seq), Method: method, done: make(chan struct{})}
	c.pending[p.ID] = p
	c.mu.Unlock()
	if _, err := c.stream.inner.Write(ctx, jsonrpc2.NewCall(jsonrpc2.NewStringID(p.ID), method, raw)); err != nil {
		c.finish(p.ID, nil, fmt.Errorf("lsptest: send %s: %w", method, err))
		return p, err
	}
	return p, nil
}

// Call sends a request and waits for its response, unmarshalling the
// result into result (which may be nil). An error response is returned as
// a *jsonrpc2.Error. When ctx ends first, Call returns ctx.Err() without
// cancelling the request on the server.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Go(ctx, method, params)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if p.err != nil {
		return p.err
	}
	if result != nil && len(p.result) > 0 {
		return json.Unmarshal(p.result, result)
	}
	return nil
}

// ExecuteCommand runs one of agentls's commands (a [command.Plan],
// [command.Review] or [command.Execute]) with args as its arguments and
// decodes the [command.Result]. The args are any JSON values, so that a test
// can also send bad ones; an error response is a *jsonrpc2.Error.
func (c *Client) ExecuteCommand(ctx context.Context, name string, args ...any) (*command.Result, error) {
	params := &protocol.ExecuteCommandParams{Command: name}
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		params.Arguments = append(params.Arguments, raw)
	}
	var res command.Result
	if err := c.Call(ctx, "workspace/executeCommand", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CancelRequest sends $/cancelRequest for one of our calls.
func (c *Client) CancelRequest(ctx context.Context, id string) error {
	return c.Notify(ctx, "$/cancelRequest", &protocol.CancelParams{ID: protocol.String(id)})
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshal(params)
	if err != nil {
		return err
	}
	_, err = c.stream.inner.Write(ctx, jsonrpc2.NewNotification(method, raw))
	return err
}

// WriteFrame sends body as one frame with a correct Content-Length header,
// whatever it holds: the way to send the server malformed JSON.
func (c *Client) WriteFrame(ctx context.Context, body []byte) error {
	fw, ok := c.stream.inner.(interface {
		WriteFrame(context.Context, []byte) (int64, error)
	})
	if !ok {
		return errors.New("lsptest: the stream cannot write raw frames")
	}
	_, err := fw.WriteFrame(ctx, body)
	return err
}

// WriteRaw sends b to the server as it is, framing included: the way to
// send malformed headers. One call is one write on the pipe, never mixed
// with the client's own frames.
func (c *Client) WriteRaw(b []byte) error {
	_, err := c.pipe.Write(b)
	return err
}

// Messages returns the log of server messages so far.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.log...)
}

// Received returns the server requests and notifications with the given
// method, in wire order.
func (c *Client) Received(method string) []Message {
	var out []Message
	for _, m := range c.Messages() {
		if m.Kind != KindResponse && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits at most d for a server request or notification with the
// given method for which match (nil matches all) returns true, looking at
// the whole log, including messages already received.
func (c *Client) WaitFor(d time.Duration, method string, match func(Message) bool) (Message, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	seen := 0
	for {
		c.mu.Lock()
		log, changed := c.log[seen:], c.changed
		seen = len(c.log)
		c.mu.Unlock()
		for _, m := range log {
			if m.Kind != KindResponse && m.Method == method && (match == nil || match(m)) {
				return m, nil
			}
		}
		select {
		case <-changed:
		case <-c.serveDone:
			// Take what arrived before the end, then give up.
			c.mu.Lock()
			rest := c.log[seen:]
			c.mu.Unlock()
			for _, m := range rest {
				if m.Kind != KindResponse && m.Method == method && (match == nil || match(m)) {
					return m, nil
				}
			}
			return Message{}, fmt.Errorf("lsptest: the server stopped before sending a matching %s", method)
		case <-t.C:
			return Message{}, fmt.Errorf("lsptest: no matching %s within %v", method, d)
		}
	}
}

// WaitNotification is [Client.WaitFor] for notifications.
func (c *Client) WaitNotification(d time.Duration, method string, match func(Message) bool) (Message, error) {
	return c.WaitFor(d, method, func(m Message) bool {
		return m.Kind == KindNotification && (match == nil || match(m))
	})
}

// WaitText waits at most d for a notification of method whose params
// contain text.
func (c *Client) WaitText(d time.Duration, method, text string) (Message, error) {
	return c.WaitNotification(d, method, func(m Message) bool { return strings.Contains(string(m.Params), text) })
}

// ServeDone is closed when Serve has returned.
func (c *Client) ServeDone() <-chan struct{} { return c.serveDone }

// ServeErr returns Serve's error; it blocks until Serve has returned.
func (c *Client) ServeErr() error {
	<-c.serveDone
	return c.serveErr
}

// WaitServe waits at most d for Serve to return and returns its error.
func (c *Client) WaitServe(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.serveDone:
		return c.serveErr
	case <-t.C:
		return fmt.Errorf("lsptest: Serve did not return within %v", d)
	}
}

// Shutdown sends shutdown and exit and waits at most d for Serve to
// return.
func (c *Client) Shutdown(ctx context.Context, d time.Duration) error {
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := c.Notify(ctx, "exit", nil); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	return c.WaitServe(d)
}

// closeTimeout bounds how long Close waits for the server.
const closeTimeout = 10 * time.Second

// Close disconnects the client (closing its end of the pipe, as a crashed
// editor would), cancels the handlers still running and waits for Serve
// to return. It reports an error only when Serve did not return in time.
// It is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return nil
	}
	c.cancel()
	_ = c.pipe.Close()
	t := time.NewTimer(closeTimeout)
	defer t.Stop()
	select {
	case <-c.conn.Done():
	case <-t.C:
		return fmt.Errorf("lsptest: the client connection did not stop within %v", closeTimeout)
	}
	select {
	case <-c.serveDone:
	case <-t.C:
		return fmt.Errorf("lsptest: Serve did not return within %v of the client closing", closeTimeout)
	}
	c.mu.Lock()
	for id := range c.pending {
		c.finishLocked(id, nil, errors.New("lsptest: client closed"))
	}
	c.mu.Unlock()
	return nil
}

// WireLog renders the log, one message per line, for failure reports.
func (c *Client) WireLog() string {
	var b strings.Builder
	for _, m := range c.Messages() {
		switch m.Kind {
		case KindResponse:
			if m.Err != nil {
				fmt.Fprintf(&b, "%4d response id=%s error=%d %q data=%s\n", m.Seq, m.ID, m.Err.Code, m.Err.Message, m.Err.Data)
			} else {
				fmt.Fprintf(&b, "%4d response id=%s %s\n", m.Seq, m.ID, clip(m.Result))
			}
		case KindRequest:
			fmt.Fprintf(&b, "%4d request  id=%s %s %s\n", m.Seq, m.ID, m.Method, clip(m.Params))
		default:
			fmt.Fprintf(&b, "%4d notify  %s %s\n", m.Seq, m.Method, clip(m.Params))
		}
	}
	return b.String()
}

func clip(b []byte) string {
	const max = 600
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// handle answers server requests (concurrently, so a handler may talk to
// the server) and passes notifications on. Recording happened in the
// stream, in wire order.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method())
	if !req.IsCall() {
		if method == "$/cancelRequest" {
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(req.Params(), &p) == nil {
				c.mu.Lock()
				cancel := c.inflight[string(p.ID)]
				c.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		}
		return nil, nil
	}
	id := idText(req.ID())
	params := append(json.RawMessage(nil), req.Params()...)
	hctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.inflight[id] = cancel
	h := c.handlers[method]
	c.mu.Unlock()
	jsonrpc2.Async(ctx)
	defer func() {
		cancel()
		c.mu.Lock()
		delete(c.inflight, id)
		c.mu.Unlock()
	}()
	if h == nil {
		h = defaultHandler(method)
	}
	res, err := h(hctx, params)
	if err != nil {
		return nil, err
	}
	raw, merr := marshal(res)
	if merr != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, merr.Error())
	}
	if raw == nil {
		raw = jsonrpc2.RawMessage("null")
	}
	return raw, nil
}

func defaultHandler(method string) Handler {
	switch method {
	case "window/workDoneProgress/create", "window/showMessageRequest":
		return Reply(nil)
	case "workspace/applyEdit":
		reason := "lsptest: no applyEdit handler"
		return Reply(&protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason})
	}
	return func(context.Context, json.RawMessage) (any, error) {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "lsptest: no handler for "+method)
	}
}

func (c *Client) record(m Message) Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	m.Seq = len(c.log)
	m.At = time.Now()
	c.log = append(c.log, m)
	close(c.changed)
	c.changed = make(chan struct{})
	return m
}

func (c *Client) finish(id string, result json.RawMessage, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finishLocked(id, result, err)
}

func (c *Client) finishLocked(id string, result json.RawMessage, err error) {
	p, ok := c.pending[id]
	if !ok {
		return
	}
	delete(c.pending, id)
	p.result, p.err = result, err
	close(p.done)
}

// stream records what the server sends and takes the responses to our
// own calls off the wire before the connection sees them.
type stream struct {
	inner jsonrpc2.Stream
	c     *Client
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := s.inner.Read(ctx)
		if err != nil {
			s.c.breakPending(err)
			return msg, n, err
		}
		switch m := msg.(type) {
		case *jsonrpc2.Response:
			rec := Message{Kind: KindResponse, ID: idText(m.ID()), Result: append(json.RawMessage(nil), m.Result()...)}
			var we *jsonrpc2.Error
			if errors.As(m.Err(), &we) {
				rec.Err = we
			} else if m.Err() != nil {
				rec.Err = jsonrpc2.NewError(jsonrpc2.InternalError, m.Err().Error())
			}
			s.c.record(rec)
			if str, ok := m.ID().StringValue(); ok && strings.HasPrefix(str, "lsptest-") {
				var rerr error
				if rec.Err != nil {
					rerr = rec.Err
				}
				s.c.finish(str, rec.Result, rerr)
				continue
			}
		case *jsonrpc2.Call:
			s.c.record(Message{Kind: KindRequest, Method: strings.Clone(m.Method()), ID: idText(m.ID()), Params: append(json.RawMessage(nil), m.Params()...)})
		case *jsonrpc2.Notification:
			rec := s.c.record(Message{Kind: KindNotification, Method: strings.Clone(m.Method()), Params: append(json.RawMessage(nil), m.Params()...)})
			if s.c.onNote != nil {
				s.c.onNote(rec)
			}
		}
		return msg, n, nil
	}
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

func (s *stream) Close() error { return s.inner.Close() }

// breakPending fails our calls when the connection ends.
func (c *Client) breakPending(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.pending {
		c.finishLocked(id, nil, fmt.Errorf("lsptest: connection ended: %w", err))
	}
}

func idText(id jsonrpc2.ID) string {
	if n, ok := id.Number(); ok {
		return strconv.FormatInt(n, 10)
	}
	if s, ok := id.StringValue(); ok {
		return strconv.Quote(s)
	}
	return "null"
}

func marshal(v any) (jsonrpc2.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return jsonrpc2.RawMessage(v), nil
	case jsonrpc2.RawMessage:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonrpc2.RawMessage(b), nil
}

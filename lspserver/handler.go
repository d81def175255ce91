package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// pendingCall lets $/cancelRequest reach a call that is still starting.
type pendingCall struct {
	mu        sync.Mutex // guards cancel and cancelled
	cancel    context.CancelFunc
	cancelled bool
}

func (p *pendingCall) set(cancel context.CancelFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cancel = cancel
	if p.cancelled {
		cancel()
	}
}

func (p *pendingCall) fire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cancelled = true
	if p.cancel != nil {
		p.cancel()
	}
}

// handle is the connection's handler. Notifications run inline on the read
// loop, so they are handled in wire order (didChange before the
// executeCommand that follows it) and must never wait on the client. Calls
// release the read loop at once and run concurrently.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		s.notification(ctx, req.Method(), req.Params())
		return nil, nil
	}
	// The lifecycle state a call sees is the one at its place in the wire
	// order, read here on the read loop before the call goes async.
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch req.Method() {
	case "initialize", "shutdown":
		// Lifecycle calls run inline on the read loop, so every message
		// after them sees their effect, as the client expects.
		res, err := s.call(ctx, state, req.Method(), req.Params())
		if err != nil {
			return nil, toWireError(err)
		}
		return res, nil
	}
	id := req.ID()
	p := &pendingCall{}
	s.mu.Lock()
	if s.exiting {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is exiting")
	}
	s.inflight[id] = p
	s.countCall(id)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, id)
		s.mu.Unlock()
	}()

	// A command continuing a session takes its place in line in wire
	// order, before the call goes async (A11).
	ctx, giveUp := s.reserveTurn(ctx, req.Method(), req.Params())
	defer giveUp()
	jsonrpc2.Async(ctx)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.set(cancel)

	res, err := s.call(cctx, state, req.Method(), req.Params())
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			// Cancelled by the client: the spec's code, not ctx.Err().
			return nil, jsonrpc2.NewError(CodeRequestCancelled, "request cancelled")
		}
		return nil, toWireError(err)
	}
	return res, nil
}

func (s *Server) call(ctx context.Context, state lifecycle, method string, params jsonrpc2.RawMessage) (any, error) {
	if method == "initialize" {
		return s.initialize(ctx, params)
	}
	switch state {
	case stateNew:
		return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "initialize first")
	case stateShutdown:
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shut down")
	}
	switch method {
	case "shutdown":
		return s.shutdown(ctx)
	case "workspace/executeCommand":
		return s.executeCommand(ctx, params)
	case "textDocument/codeAction":
		return s.codeAction(ctx, params)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method not found: %s", method))
}

func (s *Server) notification(ctx context.Context, method string, params jsonrpc2.RawMessage) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state == stateNew && method != "exit" {
		// The spec: notifications before initialize are dropped.
		s.log.Debug("Dropping notification before initialize", slog.String("method", method))
		return
	}
	var err error
	switch method {
	case "exit":
		s.mu.Lock()
		s.exitEarly = state != stateShutdown
		s.mu.Unlock()
		s.exit()
	case "initialized":
		s.initialized()
	case "$/setTrace", "workspace/didChangeConfiguration":
	case "workspace/didChangeWatchedFiles":
		err = s.didChangeWatchedFiles(params)
	case "$/cancelRequest":
		err = s.cancelRequest(params)
	case "window/workDoneProgress/cancel":
		err = s.progressCancel(params)
	case "textDocument/didOpen":
		err = s.didOpen(params)
	case "textDocument/didChange":
		err = s.didChange(params)
	case "textDocument/didClose":
		err = s.didClose(params)
	case "textDocument/didSave":
		err = s.didSave(params)
	default:
		s.log.Debug("Ignoring notification", slog.String("method", method))
	}
	if err != nil {
		s.log.Warn("Bad notification", slog.String("method", method), slog.String("err", err.Error()))
	}
}

func (s *Server) cancelRequest(params jsonrpc2.RawMessage) error {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	var id jsonrpc2.ID
	var n int64
	var str string
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(p.ID, &str) == nil:
		id = jsonrpc2.NewStringID(str)
	default:
		return fmt.Errorf("bad id %s", p.ID)
	}
	s.mu.Lock()
	pc := s.inflight[id]
	s.mu.Unlock()
	if pc != nil {
		pc.fire()
	}
	return nil
}

// decode unmarshals LSP params, mapping failures to InvalidParams.
func decode(params jsonrpc2.RawMessage, v any) error {
	if len(params) == 0 {
		return invalidParams("missing params")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: " + err.Error())
	}
	return nil
}

package lspserver

import (
	"context"
	"io"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec marshals payloads with go.lsp.dev/protocol's union-aware encoder, as
// protocol.NewServer would; we build the connection ourselves so that
// notifications are handled in wire order (see DEPS.md).
type codec struct{}

var _ jsonrpc2.Codec = codec{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// NewConn returns a JSON-RPC connection over rwc with LSP framing and the
// protocol codec. The headless client uses it too.
func NewConn(rwc io.ReadWriteCloser) jsonrpc2.Conn { return newConn(rwc, nil, nil, nil) }

// newConn is [NewConn] that also tells replied, when it is not nil, the ID
// of each response written to the stream while waiting says some are
// awaited, and tells bad why a malformed message was refused.
func newConn(rwc io.ReadWriteCloser, waiting func() bool, replied func(jsonrpc2.ID), bad func(string)) jsonrpc2.Conn {
	var st jsonrpc2.Stream = newStream(rwc, bad)
	if replied != nil {
		st = replyStream{st, waiting, replied}
	}
	return jsonrpc2.NewConn(st, jsonrpc2.WithCodec(codec{}))
}

// replyStream reports each response written, so that shutdown and exit can
// wait until the answers of calls that have finished are on the wire, not
// only until their handlers have returned.
type replyStream struct {
	jsonrpc2.Stream
	waiting func() bool // whether any response is awaited: else no decoding
	replied func(jsonrpc2.ID)
}

func (s replyStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	n, err := s.Stream.Write(ctx, msg)
	if !s.waiting() {
		return n, err
	}
	if id, ok := responseID(msg); ok {
		s.replied(id)
	}
	return n, err
}

// responseID returns the ID of msg when it is a response. The connection
// writes its own responses as an unexported type, so the envelope is
// encoded and read back; responses are few next to notifications.
func responseID(msg jsonrpc2.Message) (jsonrpc2.ID, bool) {
	if r, ok := msg.(*jsonrpc2.Response); ok {
		return r.ID(), true
	}
	switch msg.(type) {
	case *jsonrpc2.Call, *jsonrpc2.Notification:
		return jsonrpc2.ID{}, false
	}
	b, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	m, err := jsonrpc2.DecodeMessage(b)
	if r, ok := m.(*jsonrpc2.Response); ok && err == nil {
		return r.ID(), true
	}
	return jsonrpc2.ID{}, false
}

// readWatcher reports the first failed Read of a transport: the client is
// gone, so runs must stop now rather than when the connection drains.
type readWatcher struct {
	io.ReadWriteCloser
	lost func()
}

func (r readWatcher) Read(p []byte) (int, error) {
	n, err := r.ReadWriteCloser.Read(p)
	if err != nil {
		r.lost()
	}
	return n, err
}

// badMessage is told by the stream why it refused a message (E1, A14):
// the log and the client's log window say it, and the session goes on.
func (s *Server) badMessage(reason string) {
	s.log.Warn("Refused a malformed message", slog.String("reason", reason))
	if s.conn != nil {
		s.logMessage(context.Background(), protocol.MessageTypeWarning, "agentls: refused a malformed message: "+reason)
	}
}

// Package transport is the JSON-RPC transport of agentls: the LSP base
// protocol's Content-Length framing, tolerant of malformed input, and the
// connection built on it with go.lsp.dev/protocol's codec. It knows
// nothing of LSP methods, the agent or the tools — as gopls keeps its
// jsonrpc2 apart from its server — and imports none of our packages
// (cmd/agentls/deps_test.go). The server, the headless client and the
// test clients share it.
package transport

import (
	"context"
	"io"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec marshals payloads with go.lsp.dev/protocol's union-aware encoder, as
// protocol.NewServer would; we build the connection ourselves so that
// notifications are handled in wire order (see DEPS.md).
type Codec struct{}

var _ jsonrpc2.Codec = Codec{}

// Marshal encodes v; raw messages pass through unchanged.
func (Codec) Marshal(v any) ([]byte, error) {
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

// Unmarshal decodes data into v; a raw message gets a copy of data.
func (Codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// Options are the hooks of a connection; nil options, and nil fields,
// mean none.
type Options struct {
	// Refused is told why a malformed message was refused (see the
	// stream's rules); the connection goes on.
	Refused func(reason string)
	// Replied is told the ID of each response written to the stream
	// while Waiting says some are awaited (Waiting must be set with it),
	// so that a server can wait until its answers are on the wire, not
	// only until its handlers have returned.
	Replied func(jsonrpc2.ID)
	Waiting func() bool
}

// NewConn returns a JSON-RPC connection over rwc with LSP framing and the
// protocol codec.
func NewConn(rwc io.ReadWriteCloser, opts *Options) jsonrpc2.Conn {
	if opts == nil {
		opts = &Options{}
	}
	var st jsonrpc2.Stream = newStream(rwc, opts.Refused)
	if opts.Replied != nil {
		st = replyStream{st, opts.Waiting, opts.Replied}
	}
	return jsonrpc2.NewConn(st, jsonrpc2.WithCodec(Codec{}))
}

// replyStream reports each response written.
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

// WatchRead returns rwc, calling lost once its first Read fails: the
// peer is gone, so work for it can stop now rather than when the
// connection drains.
func WatchRead(rwc io.ReadWriteCloser, lost func()) io.ReadWriteCloser {
	return &readWatcher{ReadWriteCloser: rwc, lost: lost}
}

type readWatcher struct {
	io.ReadWriteCloser
	lost func()
	once sync.Once
}

func (r *readWatcher) Read(p []byte) (int, error) {
	n, err := r.ReadWriteCloser.Read(p)
	if err != nil {
		r.once.Do(r.lost)
	}
	return n, err
}

package lspserver

import (
	"context"
	"errors"
	"io"

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
func NewConn(rwc io.ReadWriteCloser) jsonrpc2.Conn {
	return jsonrpc2.NewConn(tolerantStream{jsonrpc2.NewHeaderStream(rwc)}, jsonrpc2.WithCodec(codec{}))
}

// tolerantStream answers a frame whose body is not JSON-RPC with a -32700
// or -32600 error (id null) and reads on, as JSON-RPC 2.0 says, instead of
// ending the session over one bad message.
type tolerantStream struct{ jsonrpc2.Stream }

func (s tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := s.Stream.Read(ctx)
		var we *jsonrpc2.Error
		if err == nil || !errors.As(err, &we) || (we.Code != jsonrpc2.ParseError && we.Code != jsonrpc2.InvalidRequest) {
			return msg, n, err
		}
		if _, werr := s.Stream.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, we)); werr != nil {
			return nil, 0, werr
		}
	}
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

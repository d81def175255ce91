package lspserver

import (
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
func NewConn(rwc interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
	Close() error
}) jsonrpc2.Conn {
	return jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc), jsonrpc2.WithCodec(codec{}))
}

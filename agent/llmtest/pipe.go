package llmtest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/agentls/agentls/agent/script"
)

// PipeServer is a [script.Handler] served over in-memory connections
// ([net.Pipe]) instead of a loopback port. Use it inside testing/synctest
// bubbles, where real sockets are not allowed and fake time makes
// backoffs, stalls and timeouts instant. Create it inside the bubble and
// Close it before the bubble ends.
type PipeServer struct {
	*script.Handler
	// URL is the base URL for clients of [PipeServer.Client], ending in /v1.
	URL string

	l    *pipeListener
	srv  *http.Server
	tr   *http.Transport
	done chan struct{}
}

// NewPipeServer starts a server answering from s over net.Pipe.
func NewPipeServer(s Script) *PipeServer {
	ps := &PipeServer{
		Handler: script.NewHandler(s),
		URL:     "http://llmtest.invalid/v1",
		l:       &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})},
		done:    make(chan struct{}),
	}
	ps.srv = &http.Server{Handler: ps.Handler}
	ps.tr = &http.Transport{DialContext: ps.l.dial, DisableCompression: true}
	go func() {
		defer close(ps.done)
		_ = ps.srv.Serve(ps.l)
	}()
	return ps
}

// Client returns an HTTP client whose every connection is a new pipe to
// the server, whatever the URL's host.
func (s *PipeServer) Client() *http.Client { return &http.Client{Transport: s.tr} }

// Close closes the client's idle connections and the server with every
// connection, and waits for the server's accept loop to end.
func (s *PipeServer) Close() {
	s.tr.CloseIdleConnections()
	_ = s.srv.Close()
	<-s.done
}

// pipeListener is a net.Listener whose connections come from dial.
type pipeListener struct {
	conns  chan net.Conn
	once   sync.Once
	closed chan struct{}
}

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, errors.New("llmtest: pipe server closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "llmtest.invalid:80" }

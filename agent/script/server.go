package script

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is a [Handler] listening on a loopback port: the endpoint the
// offline demo's model client talks to. Call [Server.Close] when done.
type Server struct {
	*Handler
	// URL is the base URL for clients, ending in /v1.
	URL string

	srv  *http.Server
	done chan struct{} // closed when the accept loop has ended
}

// Listen starts a server on a free loopback port answering from s. It
// never listens beyond the loopback interface.
func Listen(s Script) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil { // a host without IPv4 loopback
		if l, err = net.Listen("tcp", "[::1]:0"); err != nil {
			return nil, fmt.Errorf("script: listen on loopback: %w", err)
		}
	}
	srv := &Server{Handler: NewHandler(s), URL: "http://" + l.Addr().String() + "/v1", done: make(chan struct{})}
	srv.srv = &http.Server{Handler: srv.Handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(srv.done)
		_ = srv.srv.Serve(l) // ErrServerClosed after Close
	}()
	return srv, nil
}

// Close closes the listener and every connection, and waits for the
// accept loop to end. Requests still in flight are cut off.
func (s *Server) Close() {
	_ = s.srv.Close()
	<-s.done
}

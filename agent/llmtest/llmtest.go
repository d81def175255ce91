// Package llmtest holds the test helpers around the scripted model of
// agent/script: a server on an httptest loopback port ([NewServer]) and
// one over in-memory pipes for synctest bubbles ([NewPipeServer]). It is
// imported only from _test.go files and e2e tests, never by the binary
// (cmd/agentls/deps_test.go checks that); the demo uses agent/script.
package llmtest

import (
	"net/http/httptest"

	"github.com/agentls/agentls/agent/script"
)

// Script is a sequence of scripted model turns ([script.Script]).
type Script = script.Script

// ParseScript reads a script in JSON lines ([script.Parse]).
func ParseScript(data []byte) (Script, error) { return script.Parse(data) }

// Server is a [script.Handler] on an [httptest.Server]. Call
// [Server.Close] when done.
type Server struct {
	*script.Handler
	// URL is the base URL for clients, ending in /v1.
	URL string

	srv *httptest.Server
}

// NewServer starts a server answering from s.
func NewServer(s Script) *Server {
	h := script.NewHandler(s)
	srv := httptest.NewServer(h)
	return &Server{Handler: h, URL: srv.URL + "/v1", srv: srv}
}

// Close shuts the server down and waits for requests in flight.
func (s *Server) Close() { s.srv.Close() }

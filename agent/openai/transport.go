package openai

import (
	"net/http"
	"time"
)

// Bounds of the idle connection pool of [NewHTTPClient]: a server that
// runs hundreds of runs keeps at most a few idle model connections, and
// none for long (#12: 100 runs left 89 idle connections and their
// goroutines until 100 s of idleness).
const (
	maxIdleConns        = 4
	maxIdleConnsPerHost = 2
	idleConnTimeout     = 15 * time.Second
)

// NewHTTPClient returns an HTTP client for model requests with a bounded
// idle pool. One client is meant to be shared by every [Model] of a
// server (one per run), so that runs reuse connections instead of each
// keeping its own; [Model.CloseIdleConnections] at the end of a run
// closes what is idle.
func NewHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = maxIdleConns
	tr.MaxIdleConnsPerHost = maxIdleConnsPerHost
	tr.IdleConnTimeout = idleConnTimeout
	return &http.Client{Transport: tr}
}

// CloseIdleConnections closes the idle connections of the model's HTTP
// client; connections in use by other runs are not affected. The server
// calls it when a run ends.
func (m *Model) CloseIdleConnections() { m.httpc.CloseIdleConnections() }

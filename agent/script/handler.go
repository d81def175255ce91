package script

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Handler serves POST .../chat/completions from a [Script], for callers that
// own the listener (for example an in-memory net.Pipe dial). Requests are
// answered concurrently; turns are taken in arrival order. When the script
// is exhausted it answers HTTP 500 "script: exhausted".
//
// Faults that cut or drop a connection panic with [http.ErrAbortHandler], so the
// handler must run under a net/http server (which recovers that panic).
type Handler struct {
	// OnRequest, when set before the first request, is called with the
	// index of each request (its position in [Handler.Requests]) and its
	// body, before the request is answered.
	OnRequest func(n int, body []byte)

	mu       sync.Mutex // guards the fields below
	script   Script
	next     int
	requests []json.RawMessage
	auth     []bool
}

// NewHandler returns a handler answering from a copy of script. Tool calls
// without an ID get "call_<n>", n counting the script's calls from 1.
func NewHandler(script Script) *Handler {
	s := slices.Clone(script)
	n := 0
	for i := range s {
		s[i].ToolCalls = slices.Clone(s[i].ToolCalls)
		for j := range s[i].ToolCalls {
			n++
			if s[i].ToolCalls[j].ID == "" {
				s[i].ToolCalls[j].ID = fmt.Sprintf("call_%d", n)
			}
		}
	}
	return &Handler{script: s}
}

// Requests returns the body of each request received so far, in order.
func (h *Handler) Requests() []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

// Authorization reports, for each request received so far, whether it
// carried an Authorization header. The header's value is never stored.
func (h *Handler) Authorization() []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.auth)
}

// Remaining returns the number of turns not answered yet.
func (h *Handler) Remaining() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.script) - h.next
}

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	size int
}

// ServeHTTP answers one chat-completions request with the next turn.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "script: method not allowed")
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "script: unknown path "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "script: reading request: "+err.Error())
		return
	}
	h.mu.Lock()
	n := len(h.requests)
	h.requests = append(h.requests, json.RawMessage(body))
	h.auth = append(h.auth, r.Header.Get("Authorization") != "")
	var turn Turn
	ok := h.next < len(h.script)
	if ok {
		turn = h.script[h.next]
		h.next++
	}
	h.mu.Unlock()

	if h.OnRequest != nil {
		h.OnRequest(n, body)
	}
	if !ok {
		writeError(w, http.StatusInternalServerError, "script: exhausted")
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "script: request body is not JSON")
		return
	}
	req.size = len(body)
	if req.Model == "" {
		req.Model = "script"
	}
	if turn.DelayMS > 0 && !sleep(r.Context(), turn.DelayMS) {
		return
	}
	switch {
	case turn.Drop:
		panic(http.ErrAbortHandler) // close the connection, nothing sent
	case turn.Status != 0:
		if turn.RetryAfter != "" {
			w.Header().Set("Retry-After", turn.RetryAfter)
		}
		msg := turn.Error
		if msg == "" {
			msg = http.StatusText(turn.Status)
		}
		writeError(w, turn.Status, msg)
	case req.Stream:
		streamTurn(w, r, &turn, &req, n)
	default:
		writeCompletion(w, r, &turn, &req, n)
	}
}

// writeError answers with an OpenAI-style JSON error body.
func writeError(w http.ResponseWriter, status int, msg string) {
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": nil,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// sleep waits ms milliseconds; it reports false if ctx ended first.
func sleep(ctx context.Context, ms int) bool {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

package lspserver_test

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/lspserver/lsptest"
)

// E1: malformed headers never end the connection. Each is refused with a
// reason in window/logMessage, and the next request is answered. Before,
// the first of them made Serve return and `agentls serve` exit 1, with
// no word to the client.
func TestServer_E1_MalformedHeadersKeepSession(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a.go": "package a\n"}})
	body := `{"jsonrpc":"2.0","id":"x","method":"shutdown"}`
	for _, junk := range []string{
		"garbage\r\n\r\n",
		"\x00\x01\xfe\xff random bytes \x7f\r\n",
		"Content-Length: -5\r\n\r\n",
		"Content-Length: 1000000000000\r\n\r\n",
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)-12, body), // too short: not a shutdown
	} {
		if err := h.c.WriteRaw([]byte(junk)); err != nil {
			t.Fatalf("write %q: %v", junk, err)
		}
	}
	params := map[string]any{
		"textDocument": map[string]any{"uri": h.uri("a.go")},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}},
		"context":      map[string]any{"diagnostics": []any{}},
	}
	if err := h.c.Call(h.ctx(), "textDocument/codeAction", params, nil); err != nil {
		t.Fatalf("the session did not survive the malformed headers: %v", err)
	}
	select {
	case <-h.c.ServeDone():
		t.Fatalf("Serve returned: %v", h.c.ServeErr())
	default:
	}
	var logged []string
	for _, m := range h.c.Received("window/logMessage") {
		if strings.Contains(string(m.Params), "refused a malformed message") {
			logged = append(logged, string(m.Params))
		}
	}
	if len(logged) < 5 {
		t.Errorf("%d refusals in window/logMessage, want one per malformed frame (5):\n%s", len(logged), strings.Join(logged, "\n"))
	}
}

// E11: a call whose method is not valid UTF-8 gets an error under its own
// id, and the connection goes on.
func TestServer_E11_InvalidUTF8MethodAnsweredUnderID(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.WriteFrame(h.ctx(), []byte("{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"work\xffspace/x\"}")); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Call(h.ctx(), "shutdown", nil, nil); err != nil {
		t.Fatalf("the session did not survive: %v", err)
	}
	for _, m := range h.c.Messages() {
		if m.Kind == lsptest.KindResponse && m.ID == "41" {
			if m.Err == nil || m.Err.Code != jsonrpc2.InvalidRequest {
				t.Errorf("reply to id 41: %+v, want InvalidRequest", m)
			}
			return
		}
	}
	t.Errorf("no reply under id 41")
}

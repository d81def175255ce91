package script_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/script"
)

// TestListen: the demo's server answers on a loopback address only, and
// refuses connections once closed.
func TestListen(t *testing.T) {
	s, err := script.Parse([]byte(`{"content":"hello from the script"}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := script.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if h := u.Hostname(); h != "127.0.0.1" && h != "::1" || !strings.HasSuffix(srv.URL, "/v1") {
		t.Errorf("URL = %s; want a loopback address ending in /v1", srv.URL)
	}
	resp, body, err := post(t, srv.URL, streamReq)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(body), "[DONE]") || !strings.Contains(string(body), `"hello f"`) {
		t.Fatalf("status %d, err %v, body %q", resp.StatusCode, err, body)
	}
	if srv.Remaining() != 0 || len(srv.Requests()) != 1 {
		t.Errorf("remaining %d, requests %d", srv.Remaining(), len(srv.Requests()))
	}
	srv.Close()
	c := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	if resp, err := c.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamReq)); err == nil {
		resp.Body.Close()
		t.Errorf("the closed server still answers: %s", resp.Status)
	}
}

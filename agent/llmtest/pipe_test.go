package llmtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

const streamReq = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[]}`

// TestPipeServer serves a script over net.Pipe inside a synctest bubble,
// where loopback sockets are not allowed; a Drop turn closes the
// connection without an answer.
func TestPipeServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := llmtest.ParseScript([]byte(`{"drop":true}` + "\n" + `{"content":"hello","delay_ms":5000}`))
		if err != nil {
			t.Fatal(err)
		}
		srv := llmtest.NewPipeServer(s)
		defer srv.Close()
		c := srv.Client()
		post := func() (*http.Response, error) {
			return c.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamReq))
		}
		if resp, err := post(); err == nil {
			resp.Body.Close()
			t.Fatalf("dropped turn answered %s", resp.Status)
		}
		start := time.Now()
		resp, err := post()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "[DONE]") || time.Since(start) != 5*time.Second {
			t.Errorf("after %s: %s", time.Since(start), body)
		}
		if srv.Remaining() != 0 || len(srv.Requests()) != 2 {
			t.Errorf("remaining %d, requests %d", srv.Remaining(), len(srv.Requests()))
		}
	})
}

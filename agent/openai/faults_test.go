package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
)

// checkErr asserts err wraps want, mentions each of texts, and never
// contains the API key (A5).
func checkErr(t *testing.T, err, want error, texts ...string) {
	t.Helper()
	t.Logf("err: %v", err)
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("the API key leaked into the error: %v", err)
	}
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %q, want it to mention %q", err, s)
		}
	}
}

// TestStream_A5_Errors covers the HTTP failures and the retries.
func TestStream_A5_Errors(t *testing.T) {
	tests := []struct {
		name, script string
		edit         func(*openai.Options)
		background   bool
		want         error // nil: success
		texts        []string
		remaining    int
	}{
		{name: "401 is an auth error", script: `{"status":401,"error":"Incorrect API key provided"}`,
			want: agent.ErrModelAuth, texts: []string{"401", "Incorrect API key provided"}},
		{name: "403 is an auth error", script: `{"status":403}`, want: agent.ErrModelAuth, texts: []string{"403"}},
		{name: "500 then success (retry)", script: `{"status":500,"retry_after":"0"}` + "\n" + `{"content":"ok"}`},
		{name: "429 Retry-After 0 then success", script: `{"status":429,"retry_after":"0"}` + "\n" + `{"content":"ok"}`},
		{name: "429 after 3 retries", script: strings.Repeat(`{"status":429,"retry_after":"0","error":"slow down"}`+"\n", 5),
			want: agent.ErrModelRateLimited, texts: []string{"429", "slow down"}, remaining: 1},
		{name: "503 after 3 retries", script: strings.Repeat(`{"status":503,"retry_after":"0"}`+"\n", 5),
			want: agent.ErrModelUnavailable, texts: []string{"503"}, remaining: 1},
		{name: "503 in background fails fast", script: `{"status":503,"retry_after":"0"}` + "\n" + `{"content":"ok"}`,
			background: true, want: agent.ErrModelUnavailable, remaining: 1},
		{name: "529 in background fails fast", script: `{"status":529,"retry_after":"0"}` + "\n" + `{"content":"ok"}`,
			background: true, want: agent.ErrModelUnavailable, texts: []string{"529"}, remaining: 1},
		{name: "400 is a model error", script: `{"status":400,"error":"context length exceeded"}`,
			want: agent.ErrModel, texts: []string{"400", "context length exceeded"}},
		{name: "no retries", script: `{"status":500,"retry_after":"0"}` + "\n" + `{"content":"ok"}`,
			edit: func(o *openai.Options) { o.MaxRetries = -1 }, want: agent.ErrModelUnavailable, remaining: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.script)
			m := newModel(t, srv.URL, tt.edit)
			resp, err := m.Stream(t.Context(), &agent.Request{Background: tt.background,
				Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, nil)
			if tt.want == nil {
				if err != nil || resp.Content != "ok" {
					t.Fatalf("resp %+v, err %v", resp, err)
				}
			} else {
				checkErr(t, err, tt.want, tt.texts...)
				if resp != nil {
					t.Errorf("resp = %+v, want nil", resp)
				}
			}
			if got := srv.Remaining(); got != tt.remaining {
				t.Errorf("Remaining() = %d, want %d", got, tt.remaining)
			}
		})
	}
}

// TestStream_A5_KeyNeverInErrors: a server that echoes the Authorization
// header in its error body does not get the key into our error.
func TestStream_A5_KeyNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	_, _, err := run(t, newModel(t, srv.URL, nil), nil)
	checkErr(t, err, agent.ErrModelAuth, "[redacted]")
}

// TestStream_A5_ConnectionRefused: nothing listening is "unavailable".
func TestStream_A5_ConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/v1"
	l.Close()
	_, _, err = run(t, newModel(t, url, func(o *openai.Options) { o.MaxRetries = -1 }), nil)
	checkErr(t, err, agent.ErrModelUnavailable, "refused")
}

// TestStream_A3_CutMidToolCall: a connection cut inside the arguments gives
// the partial answer (arguments that are not JSON) and an error.
func TestStream_A3_CutMidToolCall(t *testing.T) {
	srv := serve(t, `{"tool_calls":[{"id":"c1","name":"edit_file","arguments":{"path":"a.go","text":"hello"}}],"cut_after":4}`)
	resp, _, err := run(t, newModel(t, srv.URL, nil), nil)
	checkErr(t, err, agent.ErrModelUnavailable)
	if resp == nil || len(resp.ToolCalls) != 1 || !resp.Incomplete {
		t.Fatalf("resp = %+v, want the partial call", resp)
	}
	c := resp.ToolCalls[0]
	if c.ID != "c1" || c.Name != "edit_file" || c.Arguments == "" || strings.HasSuffix(c.Arguments, "}") {
		t.Errorf("partial call = %+v", c)
	}
}

// TestStream_BadResponse: unreadable chunks and a wrong content type.
func TestStream_BadResponse(t *testing.T) {
	for _, script := range []string{
		`{"content":"abc","garbage":true}`,
		`{"content":"abc","content_type":"text/html"}`,
		`{"content":"abc","content_type":"application/json"}`,
	} {
		srv := serve(t, script)
		_, _, err := run(t, newModel(t, srv.URL, nil), nil)
		checkErr(t, err, agent.ErrModelBadResponse)
	}
}

// TestStream_NonStreamingServer: a server that ignores "stream": true and
// answers one chat.completion still works.
func TestStream_NonStreamingServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
			"message":{"role":"assistant","content":"hm","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}}],
			"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
	}))
	defer srv.Close()
	resp, deltas, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "hm" || len(deltas) != 1 || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "f" ||
		resp.Usage.PromptTokens != 3 || resp.FinishReason != "tool_calls" {
		t.Errorf("resp = %+v", resp)
	}
}

// TestStream_ErrorEvent: an error event inside the stream (vLLM does this).
func TestStream_ErrorEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"error\":{\"message\":\"engine crashed\"}}\n\n")
	}))
	defer srv.Close()
	_, _, err := run(t, newModel(t, srv.URL, nil), nil)
	checkErr(t, err, agent.ErrModelUnavailable, "engine crashed")
}

// TestStream_Cancel: cancelling the context stops a slow stream at once.
func TestStream_Cancel(t *testing.T) {
	srv := serve(t, `{"content":"abcdef","stall_ms":10000}`)
	m := newModel(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	timer := time.AfterFunc(100*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	_, _, err := runCtx(ctx, m)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Stream returned %v after the cancel", d)
	}
}

// TestStream_Stall: no bytes for StallTimeout aborts, before the headers
// or mid-stream.
func TestStream_Stall(t *testing.T) {
	for _, script := range []string{`{"content":"abc","stall_ms":10000}`, `{"content":"abc","delay_ms":10000}`} {
		srv := serve(t, script)
		m := newModel(t, srv.URL, func(o *openai.Options) { o.StallTimeout = 200 * time.Millisecond })
		start := time.Now()
		_, _, err := runCtx(t.Context(), m)
		checkErr(t, err, agent.ErrModelUnavailable, "stalled")
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: stalled after %v", script, d)
		}
	}
}

// TestStream_SlowButAlive: a stream slower than StallTimeout in total, but
// never silent for that long, is not a stall.
func TestStream_SlowButAlive(t *testing.T) {
	srv := serve(t, `{"content":"abc","delay_ms":300,"stall_ms":300}`)
	m := newModel(t, srv.URL, func(o *openai.Options) { o.StallTimeout = 500 * time.Millisecond })
	if _, _, err := runCtx(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestStream_RequestTimeout bounds the whole call.
func TestStream_RequestTimeout(t *testing.T) {
	srv := serve(t, `{"content":"abc","stall_ms":10000}`)
	m := newModel(t, srv.URL, func(o *openai.Options) { o.RequestTimeout = 200 * time.Millisecond })
	_, _, err := runCtx(t.Context(), m)
	checkErr(t, err, agent.ErrModelUnavailable, "timed out")
}

func runCtx(ctx context.Context, m *openai.Model) (*agent.Response, []string, error) {
	var deltas []string
	resp, err := m.Stream(ctx, &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}},
		func(d string) { deltas = append(deltas, d) })
	return resp, deltas, err
}

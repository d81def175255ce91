package script_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/script"
)

// server is a script.Handler on a test server.
type server struct {
	*script.Handler
	URL string
}

func newServer(t *testing.T, text string) *server {
	t.Helper()
	s, err := script.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	h := script.NewHandler(s)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{Handler: h, URL: srv.URL + "/v1"}
}

// TestStream_Wire checks the raw SSE bytes of a turn with text and two tool
// calls: role first, content in 3 pieces, each tool call announced with id,
// type and name, then its arguments in 3 pieces, then the finish reason, the
// usage chunk and [DONE].
func TestStream_Wire(t *testing.T) {
	srv := newServer(t, `{"content":"Hello there, world","tool_calls":[{"name":"read_file","arguments":{ "path": "main.go" }},{"id":"c9","name":"list_dir","arguments":"{\"path\":\".\"}"}]}`)
	resp, body, err := post(t, srv.URL, streamReq)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	events := sseEvents(t, body)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event = %q, want [DONE]", events[len(events)-1])
	}
	chunks := decodeChunks(t, events[:len(events)-1])
	first := chunks[0].Choices[0]
	if first.Delta.Role == nil || *first.Delta.Role != "assistant" || first.FinishReason != nil {
		t.Errorf("first chunk = %+v", first)
	}
	var content []string
	type call struct {
		id, typ, name string
		args          []string
	}
	var calls []*call
	var finish []string
	for i, c := range chunks[1:] {
		if c.Usage != nil {
			if i != len(chunks)-2 || len(c.Choices) != 0 || c.Usage.TotalTokens == 0 {
				t.Errorf("usage chunk %d = %+v", i, c)
			}
			continue
		}
		ch := c.Choices[0]
		if ch.FinishReason != nil {
			finish = append(finish, *ch.FinishReason)
		}
		if ch.Delta.Content != nil {
			content = append(content, *ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index == nil || tc.Function.Arguments == nil {
				t.Fatalf("tool call delta without index or arguments: %+v", tc)
			}
			if *tc.Index == len(calls) {
				if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" || *tc.Function.Arguments != "" {
					t.Errorf("first delta of call %d = %+v", *tc.Index, tc)
				}
				calls = append(calls, &call{id: tc.ID, typ: tc.Type, name: tc.Function.Name})
				continue
			}
			if tc.ID != "" || tc.Function.Name != "" {
				t.Errorf("later delta repeats id or name: %+v", tc)
			}
			calls[*tc.Index].args = append(calls[*tc.Index].args, *tc.Function.Arguments)
		}
	}
	if len(content) != 3 || strings.Join(content, "") != "Hello there, world" {
		t.Errorf("content pieces = %q", content)
	}
	if len(calls) != 2 {
		t.Fatalf("got %d calls, want 2", len(calls))
	}
	want := []call{
		{id: "call_1", typ: "function", name: "read_file", args: []string{`{"path":"main.go"}`}},
		{id: "c9", typ: "function", name: "list_dir", args: []string{`{"path":"."}`}},
	}
	for i, c := range calls {
		if len(c.args) < 3 {
			t.Errorf("call %d: arguments in %d pieces, want >= 3", i, len(c.args))
		}
		if c.id != want[i].id || c.name != want[i].name || strings.Join(c.args, "") != want[i].args[0] {
			t.Errorf("call %d = %+v, want %+v", i, *c, want[i])
		}
	}
	if len(finish) != 1 || finish[0] != "tool_calls" {
		t.Errorf("finish reasons = %q", finish)
	}
	if got := srv.Authorization(); len(got) != 1 || !got[0] {
		t.Errorf("Authorization() = %v", got)
	}
	if strings.Contains(string(srv.Requests()[0]), "sk-llmtest-secret") {
		t.Error("the key was stored")
	}
}

func TestFaults(t *testing.T) {
	t.Run("status consumes the turn", func(t *testing.T) {
		srv := newServer(t, `{"status":429,"retry_after":"2","error":"slow down"}`+"\n"+`{"content":"ok"}`)
		resp, body, _ := post(t, srv.URL, streamReq)
		var e struct {
			Error struct{ Message, Type string }
		}
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" ||
			json.Unmarshal(body, &e) != nil || e.Error.Message != "slow down" {
			t.Errorf("got %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if srv.Remaining() != 1 {
			t.Errorf("Remaining() = %d, want 1", srv.Remaining())
		}
		if resp, _, _ := post(t, srv.URL, streamReq); resp.StatusCode != 200 {
			t.Errorf("second request: %d", resp.StatusCode)
		}
	})
	t.Run("cut_after", func(t *testing.T) {
		srv := newServer(t, `{"content":"abcdef","cut_after":2}`)
		_, body, err := post(t, srv.URL, streamReq)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("read error = %v, want unexpected EOF", err)
		}
		if n := strings.Count(string(body), "data: "); n != 2 {
			t.Errorf("got %d events before the cut, want 2: %q", n, body)
		}
	})
	t.Run("no_finish", func(t *testing.T) {
		srv := newServer(t, `{"content":"abc","no_finish":true}`)
		_, body, _ := post(t, srv.URL, streamReq)
		events := sseEvents(t, body)
		for _, c := range decodeChunks(t, events[:len(events)-1]) {
			for _, ch := range c.Choices {
				if ch.FinishReason != nil {
					t.Errorf("finish_reason sent: %q", *ch.FinishReason)
				}
			}
		}
		if events[len(events)-1] != "[DONE]" {
			t.Error("no [DONE]")
		}
	})
	t.Run("usage only when asked", func(t *testing.T) {
		srv := newServer(t, `{"content":"abc"}`)
		_, body, _ := post(t, srv.URL, `{"model":"m1","stream":true}`)
		if strings.Contains(string(body), "usage") {
			t.Errorf("usage sent without include_usage: %s", body)
		}
	})
	t.Run("empty", func(t *testing.T) {
		srv := newServer(t, `{"content":"ignored","empty":true}`)
		_, body, _ := post(t, srv.URL, streamReq)
		events := sseEvents(t, body)
		for _, c := range decodeChunks(t, events[:len(events)-1]) {
			for _, ch := range c.Choices {
				if (ch.Delta.Content != nil && *ch.Delta.Content != "") || len(ch.Delta.ToolCalls) > 0 {
					t.Errorf("empty turn sent %+v", ch.Delta)
				}
			}
		}
	})
	t.Run("garbage", func(t *testing.T) {
		srv := newServer(t, `{"content":"abc","garbage":true}`)
		_, body, _ := post(t, srv.URL, streamReq)
		events := sseEvents(t, body)
		if json.Valid([]byte(events[1])) {
			t.Errorf("second event is JSON: %q", events[1])
		}
	})
	t.Run("delay_ms", func(t *testing.T) {
		srv := newServer(t, `{"content":"abc","delay_ms":150}`)
		start := time.Now()
		post(t, srv.URL, streamReq)
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("answered after %v", d)
		}
	})
	t.Run("stall_ms", func(t *testing.T) {
		// The stall is between the first event and the rest.
		srv := newServer(t, `{"content":"abc","stall_ms":500}`)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		r, err := (&http.Client{Transport: tr}).Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamReq))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		start := time.Now()
		buf := make([]byte, 4096)
		n, _ := r.Body.Read(buf)
		if first := time.Since(start); first > 400*time.Millisecond || !strings.HasPrefix(string(buf[:n]), "data: ") {
			t.Errorf("first chunk after %v: %q", first, buf[:n])
		}
		rest, _ := io.ReadAll(r.Body)
		if d := time.Since(start); d < 300*time.Millisecond || !strings.Contains(string(rest), "[DONE]") {
			t.Errorf("rest after %v: %q", d, rest)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := newServer(t, ``)
		resp, body, _ := post(t, srv.URL, streamReq)
		if resp.StatusCode != 500 || !strings.Contains(string(body), "script: exhausted") {
			t.Errorf("got %d %s", resp.StatusCode, body)
		}
	})
}

func TestNonStream(t *testing.T) {
	srv := newServer(t, `{"tool_calls":[{"name":"f","arguments":{"a":1}}]}`)
	var got []int
	srv.OnRequest = func(n int, body []byte) { got = append(got, n) }
	_, body, err := post(t, srv.URL, `{"model":"m1","messages":[]}`)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Object  string
		Choices []struct {
			Message struct {
				Content   *string
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	m := c.Choices[0].Message
	if c.Object != "chat.completion" || m.Content != nil || len(m.ToolCalls) != 1 ||
		m.ToolCalls[0].Function.Arguments != `{"a":1}` || c.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("completion = %s", body)
	}
	if len(got) != 1 || got[0] != 0 {
		t.Errorf("OnRequest saw %v", got)
	}
}

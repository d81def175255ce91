package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is distinctive so that tests can assert it never leaks (A5).
const testKey = "sk-agentls-TEST-9f3c2e71b0d4-do-not-leak"

// serve starts an llmtest server for a JSON-lines script.
func serve(t *testing.T, script string) *llmtest.Server {
	t.Helper()
	s, err := llmtest.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// newModel returns a Model for baseURL with its own transport; edit, if
// not nil, adjusts the options.
func newModel(t *testing.T, baseURL string, edit func(*openai.Options)) *openai.Model {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	opts := &openai.Options{BaseURL: baseURL, APIKey: testKey, Model: "test-model",
		HTTPClient: &http.Client{Transport: tr}}
	if edit != nil {
		edit(opts)
	}
	m, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// run streams one request and collects the text deltas.
func run(t *testing.T, m *openai.Model, req *agent.Request) (*agent.Response, []string, error) {
	t.Helper()
	if req == nil {
		req = &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}
	}
	var deltas []string
	resp, err := m.Stream(t.Context(), req, func(d string) { deltas = append(deltas, d) })
	return resp, deltas, err
}

func TestNew_RequiresModel(t *testing.T) {
	for _, opts := range []*openai.Options{nil, {APIKey: testKey}} {
		if _, err := openai.New(opts); err == nil {
			t.Errorf("New(%+v) succeeded", opts)
		}
	}
}

// TestStream_A1_Text: a text answer streamed in several deltas, with usage.
func TestStream_A1_Text(t *testing.T) {
	srv := serve(t, `{"content":"Hello, world! How are you?"}`)
	resp, deltas, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 3 || strings.Join(deltas, "") != "Hello, world! How are you?" {
		t.Errorf("deltas = %q", deltas)
	}
	if resp.Content != "Hello, world! How are you?" || resp.FinishReason != "stop" || resp.Incomplete || len(resp.ToolCalls) != 0 {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("usage = %+v, want the usage chunk's counts", resp.Usage)
	}
}

// TestStream_A1_ToolCall: arguments arrive in 3+ deltas; id and name only in
// the first.
func TestStream_A1_ToolCall(t *testing.T) {
	srv := serve(t, `{"content":"Reading.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go","offset":10}}]}`)
	resp, _, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"main.go","offset":10}`}}
	if !slices.Equal(resp.ToolCalls, want) || resp.Content != "Reading." || resp.FinishReason != "tool_calls" || resp.Incomplete {
		t.Errorf("resp = %+v", resp)
	}
}

// TestStream_A1_ParallelToolCalls: two calls, fragments keyed by index.
func TestStream_A1_ParallelToolCalls(t *testing.T) {
	srv := serve(t, `{"tool_calls":[{"id":"a","name":"read_file","arguments":{"path":"a.go"}},{"id":"b","name":"list_dir","arguments":{"path":"src"}}]}`)
	resp, _, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ToolCall{
		{ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "b", Name: "list_dir", Arguments: `{"path":"src"}`},
	}
	if !slices.Equal(resp.ToolCalls, want) {
		t.Errorf("calls = %+v, want %+v", resp.ToolCalls, want)
	}
}

// TestStream_A6_StopWithToolCalls: finish_reason "stop" does not hide the
// tool calls that arrived.
func TestStream_A6_StopWithToolCalls(t *testing.T) {
	srv := serve(t, `{"tool_calls":[{"name":"list_dir","arguments":{"path":"."}}],"finish_reason":"stop"}`)
	resp, _, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "stop" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "list_dir" {
		t.Errorf("resp = %+v", resp)
	}
}

// TestStream_A4_NoFinish: [DONE] without a finish reason is incomplete.
func TestStream_A4_NoFinish(t *testing.T) {
	srv := serve(t, `{"content":"partial answer","no_finish":true}`)
	resp, _, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Incomplete || resp.Content != "partial answer" {
		t.Errorf("resp = %+v", resp)
	}
}

// TestStream_Empty: an empty answer is reported as such (A2 is the loop's).
func TestStream_Empty(t *testing.T) {
	srv := serve(t, `{"empty":true}`)
	resp, deltas, err := run(t, newModel(t, srv.URL, nil), nil)
	if err != nil || resp.Content != "" || len(resp.ToolCalls) != 0 || len(deltas) != 0 || resp.Incomplete {
		t.Errorf("resp = %+v, deltas %q, err %v", resp, deltas, err)
	}
}

// TestStream_A1_RequestBody checks what goes on the wire: the model, the
// messages in order with tool calls and tool_call_id, the tools, usage.
func TestStream_A1_RequestBody(t *testing.T) {
	srv := serve(t, "{}\n{}")
	m := newModel(t, srv.URL, nil)
	req := &agent.Request{
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "sys"},
			{Role: agent.RoleUser, Content: "do it"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
				{ID: "c2", Name: "read_file", Arguments: `{"path":`}, // cut stream (A3)
			}},
			{Role: agent.RoleTool, ToolCallID: "c1", Content: "file a"},
			{Role: agent.RoleTool, ToolCallID: "c2", Content: "invalid_args"},
		},
		Tools: []agent.ToolSpec{{Name: "read_file", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	if _, _, err := run(t, m, req); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, m, &agent.Request{Messages: req.Messages[:2]}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name, Description string
				Parameters        map[string]any
			} `json:"function"`
		} `json:"tools"`
	}
	reqs := srv.Requests()
	if err := json.Unmarshal(reqs[0], &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "test-model" || !body.Stream || !body.StreamOptions.IncludeUsage {
		t.Errorf("model/stream = %q %v %v", body.Model, body.Stream, body.StreamOptions.IncludeUsage)
	}
	var roles []string
	for _, msg := range body.Messages {
		roles = append(roles, msg.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,tool" {
		t.Fatalf("roles = %s", got)
	}
	if body.Messages[0].Content != "sys" || body.Messages[1].Content != "do it" {
		t.Errorf("contents = %v, %v", body.Messages[0].Content, body.Messages[1].Content)
	}
	a := body.Messages[2]
	if len(a.ToolCalls) != 2 || a.ToolCalls[0].ID != "c1" || a.ToolCalls[0].Type != "function" ||
		a.ToolCalls[0].Function.Name != "read_file" || a.ToolCalls[0].Function.Arguments != `{"path":"a"}` {
		t.Errorf("assistant tool calls = %+v", a.ToolCalls)
	}
	if a.ToolCalls[1].Function.Arguments != "{}" {
		t.Errorf("invalid history arguments sent as %q, want {}", a.ToolCalls[1].Function.Arguments)
	}
	if body.Messages[3].ToolCallID != "c1" || body.Messages[4].ToolCallID != "c2" || body.Messages[3].Content != "file a" {
		t.Errorf("tool messages = %+v", body.Messages[3:])
	}
	if len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != "read_file" ||
		body.Tools[0].Function.Description != "Read a file." || body.Tools[0].Function.Parameters["required"] == nil {
		t.Errorf("tools = %+v", body.Tools)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(reqs[1], &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["tools"]; ok {
		t.Errorf("request without tools has a tools field: %s", reqs[1])
	}
	if auth := srv.Authorization(); !auth[0] {
		t.Error("no Authorization header")
	}
}

// TestStream_A1_IgnoresEnvironment: the client reads no OPENAI_* variable,
// so a key meant for another endpoint is never sent.
func TestStream_A1_IgnoresEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	srv := serve(t, `{"content":"ok"}`)
	m := newModel(t, srv.URL, func(o *openai.Options) { o.APIKey = "" })
	if _, _, err := run(t, m, nil); err != nil {
		t.Fatal(err)
	}
	if auth := srv.Authorization(); auth[0] {
		t.Error("an Authorization header was sent although no key was configured")
	}
}

// TestStream_Concurrent: one Model serves parallel calls.
func TestStream_Concurrent(t *testing.T) {
	srv := serve(t, strings.Repeat(`{"content":"x y z"}`+"\n", 8))
	m := newModel(t, srv.URL, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := m.Stream(context.Background(), &agent.Request{
				Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, nil)
			if err != nil || resp.Content != "x y z" {
				t.Errorf("resp %+v, err %v", resp, err)
			}
		})
	}
	wg.Wait()
}

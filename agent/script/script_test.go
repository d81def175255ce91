package script_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/script"
)

func TestParseScript(t *testing.T) {
	script, err := script.Parse([]byte(`# a comment

{"content":"hi"}
   # indented comment
{"tool_calls":[{"id":"x","name":"read_file","arguments":{ "path" : "main.go" }}]}
{"tool_calls":[{"name":"edit_file","arguments":"{\"path\": "}],"finish_reason":"stop"}
{"status":429,"retry_after":"0"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(script) != 4 {
		t.Fatalf("got %d turns, want 4", len(script))
	}
	if script[0].Content != "hi" || script[0].Line != 3 {
		t.Errorf("turn 0 = %+v", script[0])
	}
	if script[1].Line != 5 || script[1].ToolCalls[0].Name != "read_file" {
		t.Errorf("turn 1 = %+v", script[1])
	}
	if script[3].Status != 429 || script[3].RetryAfter != "0" || script[3].Line != 7 {
		t.Errorf("turn 3 = %+v", script[3])
	}
}

func TestParseScript_Errors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"not JSON", "{\"content\":\"a\"}\n\n{oops", "line 3"},
		{"unknown field", "# c\n{\"contnet\":\"a\"}", "line 2"},
		{"two values", "{} {}", "line 1"},
		{"bad status", "{}\n{\"status\":200}", "line 2"},
		{"array arguments", "{\"tool_calls\":[{\"name\":\"f\",\"arguments\":[1]}]}", "line 1"},
		{"number arguments", "\n\n\n{\"tool_calls\":[{\"name\":\"f\",\"arguments\":3}]}", "line 4"},
		{"negative cut", "{\"cut_after\":-1}", "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := script.Parse([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to name %q", err, tt.want)
			}
		})
	}
}

// post sends a chat-completions request and returns the response, its body
// and the error met while reading the body.
func post(t *testing.T, url, body string) (*http.Response, []byte, error) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk-llmtest-secret")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

const streamReq = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[]}`

// sseEvents splits an SSE body into data payloads, checking the framing.
func sseEvents(t *testing.T, body []byte) []string {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("body does not end with a blank line: %q", body)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("malformed event %q", ev)
		}
		out = append(out, data)
	}
	return out
}

// wireChunk is a chunk as a client decodes it.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role      *string `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeChunks(t *testing.T, events []string) []wireChunk {
	t.Helper()
	var out []wireChunk
	for _, ev := range events {
		var c wireChunk
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Model != "m1" {
			t.Errorf("chunk header = %q %q %q", c.Object, c.ID, c.Model)
		}
		out = append(out, c)
	}
	return out
}

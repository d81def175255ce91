package script

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The wire shapes of chat.completion.chunk and chat.completion objects.
type (
	chunk struct {
		ID      string        `json:"id"`
		Object  string        `json:"object"`
		Created int64         `json:"created"`
		Model   string        `json:"model"`
		Choices []chunkChoice `json:"choices"`
		Usage   *usage        `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	delta struct {
		Role      string     `json:"role,omitempty"`
		Content   *string    `json:"content,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	toolCall struct {
		Index    *int     `json:"index,omitempty"`
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	completion struct {
		ID      string             `json:"id"`
		Object  string             `json:"object"`
		Created int64              `json:"created"`
		Model   string             `json:"model"`
		Choices []completionChoice `json:"choices"`
		Usage   usage              `json:"usage"`
	}
	completionChoice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason *string `json:"finish_reason"`
	}
	message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
)

// garbage is the data line a Garbage turn sends.
const garbage = "this is not JSON {"

// events returns the data payloads of the SSE stream answering t, ending
// with [DONE].
func events(t *Turn, req *chatRequest, n int) [][]byte {
	base := chunk{
		ID:      fmt.Sprintf("chatcmpl-script-%d", n+1),
		Object:  "chat.completion.chunk",
		Created: time.Now().Unix(),
		Model:   req.Model,
	}
	var out [][]byte
	add := func(d delta, finish *string) {
		c := base
		c.Choices = []chunkChoice{{Delta: d, FinishReason: finish}}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	empty := ""
	add(delta{Role: "assistant", Content: &empty}, nil)
	if t.Garbage {
		out = append(out, []byte(garbage))
	}
	if !t.Empty {
		for _, piece := range split(t.Content, 3) {
			add(delta{Content: &piece}, nil)
		}
		for i, tc := range t.ToolCalls {
			args, _ := tc.argumentText()
			add(delta{ToolCalls: []toolCall{{
				Index: &i, ID: tc.ID, Type: "function",
				Function: function{Name: tc.Name},
			}}}, nil)
			for _, piece := range split(args, 3) {
				add(delta{ToolCalls: []toolCall{{Index: &i, Function: function{Arguments: piece}}}}, nil)
			}
		}
	}
	if !t.NoFinish {
		reason := t.finishReason()
		add(delta{}, &reason)
	}
	if req.StreamOptions.IncludeUsage {
		c := base
		c.Choices = []chunkChoice{}
		c.Usage = t.usage(req)
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	return append(out, []byte("[DONE]"))
}

// streamTurn writes t as a text/event-stream, flushing after each event and
// injecting t's faults.
func streamTurn(w http.ResponseWriter, r *http.Request, t *Turn, req *chatRequest, n int) {
	ct := t.ContentType
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, ev := range events(t, req, n) {
		if t.CutAfter > 0 && i == t.CutAfter {
			panic(http.ErrAbortHandler) // close the connection mid-response
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", ev); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		if i+1 == max(t.StallAfter, 1) && t.StallMS > 0 && !sleep(r.Context(), t.StallMS) {
			return
		}
	}
}

// writeCompletion answers a non-streaming request with one chat.completion.
func writeCompletion(w http.ResponseWriter, r *http.Request, t *Turn, req *chatRequest, n int) {
	msg := message{Role: "assistant"}
	if !t.Empty {
		if t.Content != "" || len(t.ToolCalls) == 0 {
			msg.Content = &t.Content
		}
		for _, tc := range t.ToolCalls {
			args, _ := tc.argumentText()
			msg.ToolCalls = append(msg.ToolCalls, toolCall{
				ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args},
			})
		}
	} else {
		empty := ""
		msg.Content = &empty
	}
	var finish *string
	if !t.NoFinish {
		reason := t.finishReason()
		finish = &reason
	}
	body, _ := json.Marshal(completion{
		ID:      fmt.Sprintf("chatcmpl-script-%d", n+1),
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   req.Model,
		Choices: []completionChoice{{Message: msg, FinishReason: finish}},
		Usage:   *t.usage(req),
	})
	if t.Garbage {
		body = []byte(garbage)
	}
	ct := t.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	if t.CutAfter > 0 || t.StallMS > 0 {
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		if t.CutAfter > 0 {
			panic(http.ErrAbortHandler)
		}
		if !sleep(r.Context(), t.StallMS) {
			return
		}
		body = body[len(body)/2:]
	}
	_, _ = w.Write(body)
}

// finishReason is the finish reason t reports.
func (t *Turn) finishReason() string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0 && !t.Empty:
		return "tool_calls"
	}
	return "stop"
}

// usage is a rough, deterministic token count (4 bytes a token).
func (t *Turn) usage(req *chatRequest) *usage {
	out := len(t.Content)
	for _, tc := range t.ToolCalls {
		args, _ := tc.argumentText()
		out += len(tc.Name) + len(args)
	}
	u := usage{PromptTokens: req.size/4 + 1, CompletionTokens: out/4 + 1}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return &u
}

// split cuts s into n pieces of about equal length, on rune boundaries.
// Shorter strings give one piece per rune; "" gives none.
func split(s string, n int) []string {
	runes := []rune(s)
	if len(runes) < n {
		n = len(runes)
	}
	var out []string
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

// Package script owns the scripted model: an OpenAI-compatible
// chat-completions server that answers from a [Script], one model turn per
// HTTP request. It streams text/event-stream chunks shaped like those of
// OpenAI, llama.cpp and vLLM, so a real model client (agent/openai) talks
// to it as to a real endpoint. The built-in offline demo runs on it
// ([Listen], on loopback). A script can also describe faults (HTTP errors,
// cut connections, missing finish reasons, garbage chunks, stalls), so
// that model clients can be tested against them; agent/llmtest adds the
// test-only helpers on top (httptest and in-memory servers).
//
// It is part of the product: it must not import "testing", and it holds
// no credentials: it records only whether a request carried an
// Authorization header, never its value.
package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Turn is one scripted model answer, consumed by one HTTP request.
// The zero value streams an empty assistant message with finish reason "stop".
type Turn struct {
	// Content is the assistant text, streamed in about three pieces.
	Content string `json:"content,omitempty"`
	// ToolCalls are the function calls the model makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// FinishReason defaults to "tool_calls" when ToolCalls is not empty,
	// else "stop".
	FinishReason string `json:"finish_reason,omitempty"`

	// Status, when set (400-599), answers with that HTTP status and an
	// OpenAI-style JSON error body instead of a stream.
	Status int `json:"status,omitempty"`
	// Error is the message of the error body; default: the status text.
	Error string `json:"error,omitempty"`
	// RetryAfter is sent as the Retry-After header when set.
	RetryAfter string `json:"retry_after,omitempty"`
	// CutAfter, when > 0, sends that many SSE data events and then closes
	// the connection abruptly, without finishing the response.
	CutAfter int `json:"cut_after,omitempty"`
	// Drop closes the connection without any response, not even a status
	// line, as a crashed proxy does.
	Drop bool `json:"drop,omitempty"`
	// NoFinish omits the finish reason; [DONE] is still sent.
	NoFinish bool `json:"no_finish,omitempty"`
	// Empty answers with a choice that has no content and no tool calls.
	Empty bool `json:"empty,omitempty"`
	// DelayMS waits this long before the first byte (or until the request
	// is cancelled).
	DelayMS int `json:"delay_ms,omitempty"`
	// Garbage sends a data line that is not JSON after the first chunk.
	Garbage bool `json:"garbage,omitempty"`
	// StallMS sends the first chunk (the role's, with no content), then
	// waits this long before the rest.
	StallMS int `json:"stall_ms,omitempty"`
	// StallAfter, with StallMS, is the number of events sent before the
	// wait instead of the first alone: 2 stalls after the first piece of
	// content.
	StallAfter int `json:"stall_after,omitempty"`
	// ContentType overrides the Content-Type header of a successful answer.
	ContentType string `json:"content_type,omitempty"`

	// Line is the script line the turn came from (0 when built in code).
	Line int `json:"-"`
}

// ToolCall is one scripted function call.
type ToolCall struct {
	// ID defaults to "call_<n>", n counting the calls of the whole script.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is a JSON object (sent as its compact serialization) or a
	// JSON string (sent verbatim, e.g. to script malformed JSON). Absent
	// arguments are sent as "{}".
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Script is a sequence of turns, answered in order.
type Script []Turn

// Parse reads a script in JSON lines, one [Turn] per line. Blank
// lines and lines starting with "#" are ignored. Unknown fields are errors,
// and every error names its line number.
func Parse(data []byte) (Script, error) {
	var s Script
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var t Turn
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("script: line %d: %w", i+1, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("script: line %d: more than one JSON value", i+1)
		}
		if err := t.validate(); err != nil {
			return nil, fmt.Errorf("script: line %d: %w", i+1, err)
		}
		t.Line = i + 1
		s = append(s, t)
	}
	return s, nil
}

func (t *Turn) validate() error {
	if t.Status != 0 && (t.Status < 400 || t.Status > 599) {
		return fmt.Errorf("status %d: want 400-599", t.Status)
	}
	if t.CutAfter < 0 || t.DelayMS < 0 || t.StallMS < 0 || t.StallAfter < 0 {
		return errors.New("cut_after, delay_ms, stall_ms and stall_after must not be negative")
	}
	for i, c := range t.ToolCalls {
		if _, err := c.argumentText(); err != nil {
			return fmt.Errorf("tool call %d (%s): %w", i, c.Name, err)
		}
	}
	return nil
}

// argumentText is the arguments string the server sends for c.
func (c ToolCall) argumentText() (string, error) {
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "{}", nil
	}
	switch raw[0] {
	case '{':
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return buf.String(), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return s, nil
	}
	return "", errors.New("arguments must be a JSON object or a JSON string")
}

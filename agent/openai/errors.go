package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agentls/agentls/agent"
)

// seconds is d as the README and the settings say it: "60s", not
// "1m0s"; a duration that is not whole seconds as Go writes it.
func seconds(d time.Duration) string {
	if d%time.Second != 0 {
		return d.String()
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// classify turns a failure of one Stream call into an error wrapping the
// right sentinel (A5). ctx is the caller's context, callCtx the call's own
// (with the timeout and the stall watchdog). Every message is redacted.
func (m *Model) classify(ctx, callCtx context.Context, w *watch, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model request: %w", ctx.Err())
	}
	switch context.Cause(callCtx) {
	case errStalled:
		return fmt.Errorf("%w: %w: no data for %s", agent.ErrModelUnavailable, agent.ErrModelStalled, seconds(m.stall))
	case errTimedOut:
		return fmt.Errorf("%w: timed out after %s", agent.ErrModelUnavailable, seconds(m.timeout))
	}
	if w == nil {
		return fmt.Errorf("%w: %s", agent.ErrModelUnavailable, clean(m.redact(err.Error()), 300))
	}
	if status, msg := w.failure(); status >= 400 {
		return statusError(status, msg, w.retryAfterText())
	}
	var (
		streamErr *ssestream.StreamError
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, agent.ErrModelBadResponse):
		return err
	case errors.As(err, &streamErr):
		msg := errorMessage(streamErr.Event.Data)
		if msg == "" {
			msg = streamErr.Message
		}
		return fmt.Errorf("%w: error event in stream: %s", agent.ErrModelUnavailable, clean(m.redact(msg), 200))
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr), errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%w: unreadable chunk: %s", agent.ErrModelBadResponse,
			clean(m.redact(err.Error()), 200))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: connection closed mid-stream", agent.ErrModelUnavailable)
	}
	return fmt.Errorf("%w: %s", agent.ErrModelUnavailable, clean(m.redact(err.Error()), 300))
}

// statusError maps an HTTP error status (after retries) to a sentinel.
// after, if not empty, is the wait the server asked for.
func statusError(status int, msg, after string) error {
	var kind error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind = agent.ErrModelAuth
	case status == http.StatusTooManyRequests:
		kind = agent.ErrModelRateLimited
	case status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict:
		kind = agent.ErrModelUnavailable
	default:
		kind = agent.ErrModel
	}
	if after != "" {
		after = " (the server asked to retry after " + after + ")"
	}
	if msg == "" {
		return fmt.Errorf("%w: HTTP %d%s", kind, status, after)
	}
	return fmt.Errorf("%w: HTTP %d: %s%s", kind, status, msg, after)
}

// errorMessage extracts the message of an error body: OpenAI's
// {"error":{"message":…}}, {"error":"…"} (llama.cpp, Ollama), {"message":…}
// or {"detail":…} (vLLM, proxies), else the text itself.
func errorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return string(body)
	}
	var inner struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
		return inner.Message
	case json.Unmarshal(e.Error, &s) == nil && s != "":
		return s
	case e.Message != "":
		return e.Message
	case e.Detail != nil:
		return fmt.Sprint(e.Detail)
	}
	return ""
}

// redactor returns a function that removes key from a text. Keys shorter
// than 8 bytes are placeholders for local servers ("demo", "ollama"), not
// secrets: replacing them would garble messages.
func redactor(key string) func(string) string {
	if len(key) < 8 {
		return func(s string) string { return s }
	}
	return func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
}

// clean collapses white space and truncates s to about n bytes, on a rune
// boundary. Redact before cleaning, so no part of a key survives a cut.
func clean(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

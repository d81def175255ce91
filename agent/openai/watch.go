package openai

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// watch follows one Stream call through openai-go's retries, as a
// middleware run once per HTTP attempt. It records the last attempt's
// status and error message (openai-go loses both when an error body is not
// OpenAI-shaped), marks 503/529 as not retryable for background requests
// (A5), and runs the stall watchdog: a timer armed whenever we wait for
// bytes (for the response headers, inside each body Read) that cancels the
// call with errStalled when it fires.
type watch struct {
	m          *Model
	background bool
	timer      *time.Timer

	mu      sync.Mutex // guards the fields below
	attempt int
	status  int            // of the last attempt; 0 if it got no response
	message string         // the server's error message, redacted and truncated
	res     *http.Response // the last attempt's response, if status < 400
}

func newWatch(m *Model, cancel context.CancelCauseFunc, background bool) *watch {
	w := &watch{m: m, background: background}
	w.timer = time.AfterFunc(time.Hour, func() { cancel(errStalled) })
	w.timer.Stop()
	return w
}

func (w *watch) arm()    { w.timer.Reset(w.m.stall) }
func (w *watch) disarm() { w.timer.Stop() }

// middleware is an option.Middleware for one attempt.
func (w *watch) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	w.mu.Lock()
	w.attempt++
	attempt := w.attempt
	w.status, w.message, w.res = 0, "", nil
	w.mu.Unlock()

	w.arm()
	res, err := next(req)
	if err != nil {
		w.disarm()
		if req.Context().Err() == nil {
			w.m.log.Info("Model request attempt failed", slog.Int("attempt", attempt),
				slog.String("error", clean(w.m.redact(err.Error()), 200)))
		}
		return res, err
	}
	if res.StatusCode < 400 {
		w.disarm()
		res.Body = &watchedBody{ReadCloser: res.Body, w: w}
		w.mu.Lock()
		w.status, w.res = res.StatusCode, res
		w.mu.Unlock()
		return res, nil
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	w.disarm()
	res.Body = io.NopCloser(bytes.NewReader(body))
	msg := clean(w.m.redact(errorMessage(body)), 200)
	w.mu.Lock()
	w.status, w.message = res.StatusCode, msg
	w.mu.Unlock()
	if w.background && (res.StatusCode == http.StatusServiceUnavailable || res.StatusCode == 529) {
		// Overloaded: background work (sub-agents, compaction) fails fast.
		res.Header.Set("X-Should-Retry", "false")
	}
	w.m.log.Info("Model request attempt failed", slog.Int("attempt", attempt),
		slog.Int("status", res.StatusCode), slog.String("message", msg))
	return res, nil
}

// failure returns the last attempt's HTTP status and error message.
func (w *watch) failure() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.message
}

// response returns the last attempt's response if it succeeded.
func (w *watch) response() *http.Response {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.res
}

// watchedBody arms the stall timer while a Read waits for bytes.
type watchedBody struct {
	io.ReadCloser
	w *watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.arm()
	defer b.w.disarm()
	return b.ReadCloser.Read(p)
}

func (b *watchedBody) Close() error {
	b.w.disarm()
	return b.ReadCloser.Close()
}

// isEventStream reports whether res says it is a text/event-stream. A
// missing Content-Type gets the benefit of the doubt: the chunks are
// checked anyway.
func isEventStream(res *http.Response) bool {
	ct := res.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

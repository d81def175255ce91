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

// watch follows one HTTP attempt of a Stream call, as an openai-go
// middleware. It records the attempt's status, error message and
// Retry-After headers (openai-go loses the message when an error body is
// not OpenAI-shaped), and runs the stall watchdog: a timer armed whenever
// we wait for bytes (for the response headers, inside each body Read) that
// cancels the attempt with errStalled when it fires.
type watch struct {
	m       *Model
	attempt int
	timer   *time.Timer

	mu         sync.Mutex     // guards the fields below
	status     int            // 0 if the attempt got no response
	message    string         // the server's error message, redacted and truncated
	retryAfter http.Header    // Retry-After and retry-after-ms of an error answer
	res        *http.Response // the response, if status < 400
}

func newWatch(m *Model, cancel context.CancelCauseFunc, attempt int) *watch {
	w := &watch{m: m, attempt: attempt}
	w.timer = time.AfterFunc(time.Hour, func() { cancel(errStalled) })
	w.timer.Stop()
	return w
}

func (w *watch) arm()    { w.timer.Reset(w.m.stall) }
func (w *watch) disarm() { w.timer.Stop() }

// middleware is an option.Middleware for the attempt.
func (w *watch) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	w.arm()
	res, err := next(req)
	if err != nil {
		w.disarm()
		if req.Context().Err() == nil {
			w.m.log.Debug("Model request attempt failed", slog.Int("attempt", w.attempt),
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
	ra := http.Header{}
	for _, k := range []string{"Retry-After", "Retry-After-Ms"} {
		if v := res.Header.Get(k); v != "" {
			ra.Set(k, v)
		}
	}
	w.mu.Lock()
	w.status, w.message, w.retryAfter = res.StatusCode, msg, ra
	w.mu.Unlock()
	w.m.log.Debug("Model request attempt failed", slog.Int("attempt", w.attempt),
		slog.Int("status", res.StatusCode), slog.String("message", msg))
	return res, nil
}

// failure returns the attempt's HTTP status and error message.
func (w *watch) failure() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.message
}

// response returns the attempt's response if it succeeded.
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

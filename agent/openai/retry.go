package openai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
)

// Backoff of retries without a Retry-After: backoffBase, doubling, at most
// backoffMax, minus up to a fifth of jitter so that many clients do not
// come back at the same instant.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 8 * time.Second
)

// retry decides whether a failed attempt is retried (A5), and after how
// long. Retried: 408, 409, 429 and 5xx answers, except 503 and 529
// (overload) for background requests, which fail fast so that sub-agents
// and compaction do not pile onto an overloaded server; and connection
// errors before any response. Never retried: other 4xx (401 above all), a
// stream that broke after it started, a stall, the caller's cancellation or
// the request timeout.
func (m *Model) retry(callCtx context.Context, err error, w *watch, attempt int, background bool) (agent.Retry, bool) {
	if attempt > m.maxRetries || callCtx.Err() != nil || errors.Is(err, agent.ErrModelStalled) {
		return agent.Retry{}, false
	}
	status, msg := w.failure()
	r := agent.Retry{Attempt: attempt + 1, Status: status}
	switch {
	case status == 0:
		if w.response() != nil {
			return r, false // the stream started, then broke: the loop decides
		}
		r.Reason = "no response from the model server"
	case status == http.StatusServiceUnavailable || status == 529:
		if background {
			return r, false
		}
	case status == http.StatusTooManyRequests, status == http.StatusRequestTimeout,
		status == http.StatusConflict, status >= 500:
	default:
		return r, false
	}
	if status != 0 {
		r.Reason = fmt.Sprintf("HTTP %d", status)
		if msg != "" {
			r.Reason += ": " + clean(msg, 120)
		}
	}
	if d, ok := w.retryAfterWait(); ok {
		if d > m.maxWait {
			return r, false
		}
		r.Wait = d
		return r, true
	}
	r.Wait = backoff(attempt)
	return r, true
}

// backoff is the wait before retry n (1-based) when the server gave none.
func backoff(n int) time.Duration {
	d := backoffMax
	if n < 6 {
		d = min(backoffBase<<(n-1), backoffMax)
	}
	return d - time.Duration(rand.Int64N(int64(d)/5+1))
}

// retryAfterWait parses the attempt's retry-after-ms or Retry-After header
// (seconds or an HTTP date).
func (w *watch) retryAfterWait() (time.Duration, bool) {
	w.mu.Lock()
	h := w.retryAfter
	w.mu.Unlock()
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// retryAfterText describes a Retry-After longer than we wait, for the
// error message; "" otherwise.
func (w *watch) retryAfterText() string {
	d, ok := w.retryAfterWait()
	if !ok || d <= w.m.maxWait {
		return ""
	}
	return d.Round(time.Second).String()
}

// sleep waits d or until ctx is done; it returns ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
)

// pipeModel returns a Model talking to an llmtest script over net.Pipe.
// Call it inside a synctest bubble.
func pipeModel(t *testing.T, script string, edit func(*openai.Options)) (*openai.Model, *llmtest.PipeServer) {
	t.Helper()
	s, err := llmtest.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewPipeServer(s)
	t.Cleanup(srv.Close)
	opts := &openai.Options{BaseURL: srv.URL, APIKey: testKey, Model: "test-model", HTTPClient: srv.Client()}
	if edit != nil {
		edit(opts)
	}
	m, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

// TestStream_A5_RetryPolicy checks, in fake time, which failures are
// retried, how often, and how long the adapter waits before each retry.
func TestStream_A5_RetryPolicy(t *testing.T) {
	type span struct{ lo, hi time.Duration }
	exact := func(d time.Duration) span { return span{d, d} }
	tests := []struct {
		name, script string
		background   bool
		edit         func(*openai.Options)
		waits        []span // one per retry
		statuses     []int  // of the failed attempts that were retried
		want         error  // nil: success
		texts        []string
		extra        time.Duration // fake time spent besides the waits
	}{
		{name: "429 honours Retry-After seconds",
			script: `{"status":429,"retry_after":"2"}` + "\n" + `{"status":429,"retry_after":"7"}` + "\n" + `{"content":"ok"}`,
			waits:  []span{exact(2 * time.Second), exact(7 * time.Second)}, statuses: []int{429, 429}},
		{name: "429 honours an HTTP-date Retry-After",
			// synctest's clock starts at 2000-01-01 00:00:00 UTC.
			script: `{"status":429,"retry_after":"Sat, 01 Jan 2000 00:00:05 GMT"}` + "\n" + `{"content":"ok"}`,
			waits:  []span{exact(5 * time.Second)}, statuses: []int{429}},
		{name: "429 without Retry-After backs off exponentially",
			script: strings.Repeat(`{"status":429}`+"\n", 3) + `{"content":"ok"}`,
			waits: []span{{400 * time.Millisecond, 500 * time.Millisecond}, {800 * time.Millisecond, time.Second},
				{1600 * time.Millisecond, 2 * time.Second}}, statuses: []int{429, 429, 429}},
		{name: "429 gives up after 3 retries",
			script: strings.Repeat(`{"status":429,"retry_after":"1"}`+"\n", 4) + `{"content":"ok"}`,
			waits:  []span{exact(time.Second), exact(time.Second), exact(time.Second)}, statuses: []int{429, 429, 429},
			want: agent.ErrModelRateLimited, texts: []string{"429"}},
		{name: "429 asking for more than MaxRetryWait fails at once",
			script: `{"status":429,"retry_after":"120"}` + "\n" + `{"content":"ok"}`,
			want:   agent.ErrModelRateLimited, texts: []string{"retry after 2m0s"}},
		{name: "500 is retried", script: `{"status":500}` + "\n" + `{"content":"ok"}`,
			waits: []span{{400 * time.Millisecond, 500 * time.Millisecond}}, statuses: []int{500}},
		{name: "503 is retried in the foreground", script: `{"status":503,"retry_after":"3"}` + "\n" + `{"content":"ok"}`,
			waits: []span{exact(3 * time.Second)}, statuses: []int{503}},
		{name: "529 is retried in the foreground", script: `{"status":529}` + "\n" + `{"content":"ok"}`,
			waits: []span{{400 * time.Millisecond, 500 * time.Millisecond}}, statuses: []int{529}},
		{name: "503 fails fast in the background", script: `{"status":503,"retry_after":"1"}` + "\n" + `{"content":"ok"}`,
			background: true, want: agent.ErrModelUnavailable, texts: []string{"503"}},
		{name: "529 fails fast in the background", script: `{"status":529}` + "\n" + `{"content":"ok"}`,
			background: true, want: agent.ErrModelUnavailable, texts: []string{"529"}},
		{name: "500 is retried in the background", script: `{"status":500,"retry_after":"1"}` + "\n" + `{"content":"ok"}`,
			background: true, waits: []span{exact(time.Second)}, statuses: []int{500}},
		{name: "401 is not retried", script: `{"status":401}` + "\n" + `{"content":"ok"}`,
			want: agent.ErrModelAuth, texts: []string{"check OPENAI_API_KEY"}},
		{name: "400 is not retried", script: `{"status":400,"error":"bad"}` + "\n" + `{"content":"ok"}`,
			want: agent.ErrModel, texts: []string{"bad"}},
		{name: "a dropped connection is retried", script: `{"drop":true}` + "\n" + `{"content":"ok"}`,
			waits: []span{{400 * time.Millisecond, 500 * time.Millisecond}}, statuses: []int{0}},
		{name: "a stream cut mid-answer is not retried here", script: `{"content":"abcdef","cut_after":2}` + "\n" + `{"content":"ok"}`,
			want: agent.ErrModelUnavailable, texts: []string{"mid-stream"}},
		{name: "a stall is not retried here", script: `{"delay_ms":600000}` + "\n" + `{"content":"ok"}`,
			edit: func(o *openai.Options) { o.StallTimeout = 10 * time.Second },
			want: agent.ErrModelStalled, texts: []string{"stalled: no data for 10s"}, extra: 10 * time.Second},
		{name: "MaxRetries bounds the retries", script: strings.Repeat(`{"status":500,"retry_after":"1"}`+"\n", 2) + `{"content":"ok"}`,
			edit:  func(o *openai.Options) { o.MaxRetries = 1 },
			waits: []span{exact(time.Second)}, statuses: []int{500}, want: agent.ErrModelUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, srv := pipeModel(t, tt.script, tt.edit)
				var retries []agent.Retry
				req := &agent.Request{Background: tt.background, Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}},
					OnRetry: func(r agent.Retry) { retries = append(retries, r) }}
				start := time.Now()
				resp, err := m.Stream(t.Context(), req, nil)
				elapsed := time.Since(start)
				if tt.want == nil {
					if err != nil || resp.Content != "ok" {
						t.Fatalf("resp %+v, err %v", resp, err)
					}
				} else {
					checkErr(t, err, tt.want, tt.texts...)
				}
				if len(retries) != len(tt.waits) {
					t.Fatalf("retries = %+v, want %d", retries, len(tt.waits))
				}
				total := tt.extra
				for i, r := range retries {
					if r.Attempt != i+2 || r.Status != tt.statuses[i] || r.Wait < tt.waits[i].lo || r.Wait > tt.waits[i].hi || r.Reason == "" {
						t.Errorf("retry %d = %+v, want attempt %d, status %d, wait in %v", i, r, i+2, tt.statuses[i], tt.waits[i])
					}
					total += r.Wait
				}
				if elapsed != total {
					t.Errorf("Stream took %s in fake time, want the waits' sum %s", elapsed, total)
				}
				if got, want := len(srv.Requests()), len(retries)+1; got != want {
					t.Errorf("%d requests, want %d", got, want)
				}
			})
		})
	}
}

// TestStream_A5_CancelDuringBackoff: cancelling while the adapter waits to
// retry returns at once.
func TestStream_A5_CancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := pipeModel(t, `{"status":429,"retry_after":"30"}`+"\n"+`{"content":"ok"}`, nil)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := m.Stream(ctx, &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, nil)
		if !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Fatalf("err %v after %s, want context.Canceled after 1s", err, time.Since(start))
		}
	})
}

// TestStream_A5_TimeoutCoversRetries: RequestTimeout bounds the retries
// and their waits too.
func TestStream_A5_TimeoutCoversRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := pipeModel(t, strings.Repeat(`{"status":503,"retry_after":"20"}`+"\n", 4),
			func(o *openai.Options) { o.RequestTimeout = 30 * time.Second })
		start := time.Now()
		_, err := m.Stream(t.Context(), &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, nil)
		checkErr(t, err, agent.ErrModelUnavailable, "timed out after 30s")
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("took %s, want 30s", d)
		}
	})
}

// Package openai owns the model client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Ollama, llama.cpp server, vLLM): it implements
// [agent.Model] by streaming chat completions with tools and assembling the
// chunks into an [agent.Response] (requirement A1).
//
// It is the only package that imports github.com/openai/openai-go. It owns
// the HTTP retry policy of A5 (retry.go: 429 with Retry-After or
// exponential backoff, at most 3 retries; 503/529 retried in the
// foreground, failing fast for background requests; never 401), the
// per-request deadline and the stall watchdog (watch.go). It does not
// decide what to do with an answer: it reports incomplete streams (A4)
// and returns every tool call that arrived whatever the finish reason (A6),
// and its errors wrap the agent.ErrModel* sentinels so the loop can decide.
// The API key never appears in its errors or logs.
package openai

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentls/agentls/agent"
)

// Defaults for [Options].
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultMaxRetries     = 3
	DefaultMaxRetryWait   = 60 * time.Second
	DefaultRequestTimeout = 5 * time.Minute
	DefaultStallTimeout   = 60 * time.Second
)

// Options configures a [Model]. Zero fields take the defaults above. The
// environment is not read: the caller resolves OPENAI_BASE_URL,
// OPENAI_API_KEY and AGENTLS_MODEL.
type Options struct {
	BaseURL string // default DefaultBaseURL
	APIKey  string // empty: no Authorization header
	Model   string // required
	// HTTPClient sends the requests; nil means a client of the Model's own
	// from [NewHTTPClient]. A server shares one among its runs.
	HTTPClient *http.Client
	// Logger receives retries and failures (never the key); nil discards.
	Logger *slog.Logger
	// MaxRetries is the number of retries after 408, 409, 429, 5xx and
	// connection errors before any response (A5); 0 means
	// DefaultMaxRetries, a negative value means none. Background requests
	// are not retried after 503 and 529 (overload). The wait is the
	// server's Retry-After (or retry-after-ms) when given, else an
	// exponential backoff of 0.5 s, 1 s, 2 s … (at most 8 s) with jitter.
	MaxRetries int
	// MaxRetryWait is the longest Retry-After honoured; a server asking
	// for a longer wait fails the request at once, saying how long it
	// asked for. Zero means DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// RequestTimeout bounds a whole [Model.Stream] call, retries included.
	RequestTimeout time.Duration
	// StallTimeout aborts a request when no bytes arrive for this long,
	// while waiting for the response headers or for the next chunk. A
	// stalled request is not retried here: the error wraps
	// agent.ErrModelStalled and the caller decides.
	StallTimeout time.Duration
}

// Model is an [agent.Model] backed by an OpenAI-compatible endpoint. It is
// safe for concurrent use.
type Model struct {
	client     openai.Client
	httpc      *http.Client
	model      string
	log        *slog.Logger
	redact     func(string) string
	timeout    time.Duration
	stall      time.Duration
	maxRetries int
	maxWait    time.Duration
	cache      msgCache // the JSON of recent messages (encode.go)
}

var _ agent.Model = (*Model)(nil)

// New returns a Model for opts. It fails only if opts names no model.
func New(opts *Options) (*Model, error) {
	if opts == nil || opts.Model == "" {
		return nil, errors.New("openai: no model name configured")
	}
	o := *opts
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = DefaultMaxRetries
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = DefaultMaxRetryWait
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	// Every setting is explicit so that openai-go's environment defaults
	// (OPENAI_API_KEY, OPENAI_BASE_URL, …) never apply: a key meant for one
	// endpoint must not be sent to another. Retries are ours (retry.go), so
	// that the policy of A5 is exact and each retry is reported.
	ro := []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithAPIKey(o.APIKey),
		option.WithMaxRetries(0),
	}
	if o.HTTPClient == nil {
		o.HTTPClient = NewHTTPClient()
	}
	ro = append(ro, option.WithHTTPClient(o.HTTPClient))
	return &Model{
		client:     openai.NewClient(ro...),
		httpc:      o.HTTPClient,
		model:      o.Model,
		log:        o.Logger,
		redact:     redactor(o.APIKey),
		timeout:    o.RequestTimeout,
		stall:      o.StallTimeout,
		maxRetries: o.MaxRetries,
		maxWait:    o.MaxRetryWait,
	}, nil
}

// Errors that end a call from inside; they are the causes of the call's
// context.
var (
	errStalled  = errors.New("stalled")
	errTimedOut = errors.New("timed out")
)

// Stream implements [agent.Model]. A Response comes back whenever at least
// one chunk arrived, even with an error (for example a connection broken
// mid-stream); Response.Incomplete is set when no finish reason arrived.
// Failures before any response are retried as [Options.MaxRetries] says,
// each announced to req.OnRetry; a stream that broke after it started is
// not retried here (the loop decides from what arrived, A4).
func (m *Model) Stream(ctx context.Context, req *agent.Request, onText func(delta string)) (*agent.Response, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	body, err := m.body(req)
	if err != nil {
		return nil, err
	}
	callCtx, cancelTimeout := context.WithTimeoutCause(ctx, m.timeout, errTimedOut)
	defer cancelTimeout()
	m.log.Debug("Model request", slog.String("model", m.model),
		slog.Int("messages", len(req.Messages)), slog.Int("tools", len(req.Tools)))
	for attempt := 1; ; attempt++ {
		resp, w, err := m.attempt(ctx, callCtx, body, onText, attempt)
		if err == nil {
			return resp, nil
		}
		r, ok := m.retry(callCtx, err, w, attempt, req.Background)
		if !ok {
			if ctx.Err() == nil {
				m.log.Warn("Model request failed", slog.String("error", err.Error()), slog.Int("attempts", attempt))
			}
			return resp, err
		}
		m.log.Info("Retrying model request", slog.Int("attempt", r.Attempt), slog.Int("status", r.Status),
			slog.Duration("wait", r.Wait), slog.String("reason", r.Reason))
		if req.OnRetry != nil {
			req.OnRetry(r)
		}
		if err := sleep(callCtx, r.Wait); err != nil {
			return nil, m.classify(ctx, callCtx, nil, err)
		}
	}
}

// attempt makes one HTTP request and reads its answer. The returned watch
// says what the server answered, for the retry decision.
func (m *Model) attempt(ctx, callCtx context.Context, body []byte,
	onText func(string), n int) (*agent.Response, *watch, error) {
	attemptCtx, cancel := context.WithCancelCause(callCtx)
	defer cancel(nil)
	w := newWatch(m, cancel, n)
	defer w.disarm()
	// The body is ready (see [Model.body]); the empty params cost nothing.
	stream := m.client.Chat.Completions.NewStreaming(attemptCtx, openai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body), option.WithMiddleware(w.middleware))
	defer stream.Close()
	if stream.Err() == nil {
		if res := w.response(); res != nil && !isEventStream(res) {
			resp, err := m.fromBody(res, onText)
			if err != nil {
				err = m.classify(ctx, attemptCtx, w, err)
			}
			return resp, w, err
		}
	}
	var a assembler
	for stream.Next() {
		a.add(stream.Current(), onText)
	}
	resp := a.response()
	if err := stream.Err(); err != nil {
		return resp, w, m.classify(ctx, attemptCtx, w, err)
	}
	if resp == nil {
		// A stream with nothing but [DONE]: still an answer, an empty one.
		resp = &agent.Response{Incomplete: true}
	}
	return resp, w, nil
}

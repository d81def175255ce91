// Package openai owns the model client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Ollama, llama.cpp server, vLLM): it implements
// [agent.Model] by streaming chat completions with tools and assembling the
// chunks into an [agent.Response] (requirement A1).
//
// It is the only package that imports github.com/openai/openai-go. It does
// not decide what to do with an answer: it reports incomplete streams (A4)
// and returns every tool call that arrived whatever the finish reason (A6),
// and its errors wrap the agent.ErrModel* sentinels (A5) so the loop can
// decide. The API key never appears in its errors or logs.
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
	DefaultMaxRetries     = 2
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
	// HTTPClient sends the requests; nil means a client with a clone of
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Logger receives retries and failures (never the key); nil discards.
	Logger *slog.Logger
	// MaxRetries is the number of retries after 408, 409, 429, 5xx and
	// connection errors (honouring Retry-After); 0 means DefaultMaxRetries,
	// a negative value means none.
	MaxRetries int
	// RequestTimeout bounds a whole [Model.Stream] call, retries included.
	RequestTimeout time.Duration
	// StallTimeout aborts a request when no bytes arrive for this long,
	// while waiting for the response headers or for the next chunk. A
	// stalled request is not retried: the caller decides.
	StallTimeout time.Duration
}

// Model is an [agent.Model] backed by an OpenAI-compatible endpoint. It is
// safe for concurrent use.
type Model struct {
	client  openai.Client
	model   string
	log     *slog.Logger
	redact  func(string) string
	timeout time.Duration
	stall   time.Duration
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
	// endpoint must not be sent to another.
	ro := []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithAPIKey(o.APIKey),
		option.WithMaxRetries(o.MaxRetries),
	}
	if o.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(o.HTTPClient))
	}
	return &Model{
		client:  openai.NewClient(ro...),
		model:   o.Model,
		log:     o.Logger,
		redact:  redactor(o.APIKey),
		timeout: o.RequestTimeout,
		stall:   o.StallTimeout,
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
func (m *Model) Stream(ctx context.Context, req *agent.Request, onText func(delta string)) (*agent.Response, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	callCtx, cancelTimeout := context.WithTimeoutCause(ctx, m.timeout, errTimedOut)
	defer cancelTimeout()
	callCtx, cancel := context.WithCancelCause(callCtx)
	defer cancel(nil)
	w := newWatch(m, cancel, req.Background)
	defer w.disarm()

	m.log.Debug("Model request", slog.String("model", m.model),
		slog.Int("messages", len(req.Messages)), slog.Int("tools", len(req.Tools)))
	stream := m.client.Chat.Completions.NewStreaming(callCtx, params, option.WithMiddleware(w.middleware))
	defer stream.Close()
	if stream.Err() == nil {
		if res := w.response(); res != nil && !isEventStream(res) {
			resp, err := m.fromBody(res, onText)
			if err != nil {
				err = m.fail(ctx, callCtx, w, err)
			}
			return resp, err
		}
	}
	var a assembler
	for stream.Next() {
		a.add(stream.Current(), onText)
	}
	resp := a.response()
	if err := stream.Err(); err != nil {
		return resp, m.fail(ctx, callCtx, w, err)
	}
	if resp == nil {
		// A stream with nothing but [DONE]: still an answer, an empty one.
		resp = &agent.Response{Incomplete: true}
	}
	return resp, nil
}

// fail classifies err and logs it.
func (m *Model) fail(ctx, callCtx context.Context, w *watch, err error) error {
	err = m.classify(ctx, callCtx, w, err)
	if ctx.Err() == nil {
		m.log.Warn("Model request failed", slog.String("error", err.Error()))
	}
	return err
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Role is the author of a [Message].
type Role string

// The roles of a chat conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation sent to the model.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant only
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool only
	// Images go with a user message as image parts (A12): the pictures
	// the user referenced with @path.
	Images []Image `json:"images,omitempty"`
}

// Image is one picture of a user message: its type, checked by its
// magic bytes, and its bytes.
type Image struct {
	MIME string `json:"mime"` // image/png, image/jpeg, image/gif or image/webp
	Path string `json:"path"` // the workspace path it was read from
	Data []byte `json:"data"`
}

// ToolCall is one call the model asked for. Arguments is the raw text the
// model produced: it is untrusted and may not even be JSON.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model request.
type Request struct {
	Messages []Message
	Tools    []ToolSpec // nil: the request carries no tools
	// Background marks requests that are not waited on by the user
	// (sub-agents, compaction): they fail fast on overload.
	Background bool
	// OnRetry, when not nil, is called by the Model each time it is about
	// to retry the request itself (after a 429, a 5xx or a connection
	// error), before it waits. It runs inside Stream, on its goroutine.
	OnRetry func(Retry)
}

// Retry describes one retry a [Model] is about to make (A5, A14).
type Retry struct {
	Attempt int           // the attempt about to start: 2 for the first retry
	Status  int           // HTTP status of the failed attempt; 0: no response
	Wait    time.Duration // how long the Model waits first
	Reason  string        // short and redacted, e.g. "HTTP 429: slow down"
}

// Usage is the token count the model reported, if any.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Response is one assembled model answer.
type Response struct {
	Content      string
	ToolCalls    []ToolCall
	FinishReason string // as reported; never trusted alone (A6)
	// Incomplete is set when the stream ended without a finish reason (A4).
	Incomplete bool
	Usage      Usage
}

// Model is a chat model that streams. Implementations live in sub-packages
// (agent/openai); tests use fakes.
//
// Stream sends req and assembles the answer. onText, when non-nil, is called
// with each content delta as it arrives, on the calling goroutine. Stream
// returns when the answer is complete, the stream broke, or ctx is done; a
// partial answer may come with an error. Errors wrap [ErrModel] sentinels so
// the loop can tell kinds apart. Stream must be safe for concurrent use.
type Model interface {
	Stream(ctx context.Context, req *Request, onText func(delta string)) (*Response, error)
}

// Errors a [Model] returns, wrapped with details. The message of a wrapped
// error must never contain the API key.
var (
	ErrModel            = errors.New("model error")
	ErrModelUnavailable = errors.New("model unavailable") // connection refused, DNS, 5xx after retries
	ErrModelAuth        = errors.New("model rejected the API key (401); check OPENAI_API_KEY")
	ErrModelRateLimited = errors.New("model rate limited") // 429 after retries
	ErrModelBadResponse = errors.New("model sent a response agentls cannot read")
	// ErrModelStalled is wrapped together with ErrModelUnavailable when no
	// byte arrived for the stall timeout: the loop retries such a request
	// once.
	ErrModelStalled = errors.New("stalled")
)

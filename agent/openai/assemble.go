package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/agentls/agentls/agent"
)

// assembler builds a Response from stream chunks. It trusts nothing about
// the order of events: tool-call fragments are keyed by index, ids and
// names may come in the first fragment only, and a finish reason is not
// needed to keep the calls (A6).
type assembler struct {
	chunks  int
	content strings.Builder
	finish  string
	usage   agent.Usage
	calls   []*agent.ToolCall
	byIndex map[int64]int // tool-call index on the wire → position in calls
}

// add takes one chunk; onText, if not nil, gets each content delta.
func (a *assembler) add(c openai.ChatCompletionChunk, onText func(string)) {
	a.chunks++
	if c.JSON.Usage.Valid() {
		a.usage = agent.Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice; ignore any other
		}
		if d := ch.Delta.Content; d != "" {
			a.content.WriteString(d)
			if onText != nil {
				onText(d)
			}
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

// addCall merges one tool-call fragment.
func (a *assembler) addCall(index int64, id, name, args string) {
	pos, ok := a.byIndex[index]
	// Some servers give every call the same index (or none): a new id at a
	// known index starts a new call.
	if ok && id != "" && a.calls[pos].ID != "" && a.calls[pos].ID != id {
		ok = false
	}
	if !ok {
		if a.byIndex == nil {
			a.byIndex = map[int64]int{}
		}
		pos = len(a.calls)
		a.byIndex[index] = pos
		a.calls = append(a.calls, &agent.ToolCall{})
	}
	c := a.calls[pos]
	if c.ID == "" {
		c.ID = id
	}
	// Names normally arrive whole in the first fragment; some servers
	// repeat them, a few split them.
	if name != "" && name != c.Name {
		c.Name += name
	}
	c.Arguments += args
}

// response returns what was assembled, or nil if no chunk arrived.
func (a *assembler) response() *agent.Response {
	if a.chunks == 0 {
		return nil
	}
	r := &agent.Response{
		Content:      a.content.String(),
		FinishReason: a.finish,
		Incomplete:   a.finish == "",
		Usage:        a.usage,
	}
	for i, c := range a.calls {
		tc := *c
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", i) // the tool result needs an id to pair with
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
	return r
}

// fromBody reads an answer that is not an event stream. A server that
// ignores "stream": true sends one chat.completion as JSON: take it. Anything
// else is a response we cannot read.
func (m *Model) fromBody(res *http.Response, onText func(string)) (*agent.Response, error) {
	ct := res.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		return nil, fmt.Errorf("%w: content type %q, want text/event-stream",
			agent.ErrModelBadResponse, clean(m.redact(ct), 60))
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var cc openai.ChatCompletion
	if err := json.Unmarshal(body, &cc); err != nil || len(cc.Choices) == 0 {
		return nil, fmt.Errorf("%w: JSON answer without choices", agent.ErrModelBadResponse)
	}
	var a assembler
	a.chunks = 1
	if cc.JSON.Usage.Valid() {
		a.usage = agent.Usage{PromptTokens: cc.Usage.PromptTokens, CompletionTokens: cc.Usage.CompletionTokens}
	}
	ch := cc.Choices[0]
	if ch.Message.Content != "" {
		a.content.WriteString(ch.Message.Content)
		if onText != nil {
			onText(ch.Message.Content)
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		a.addCall(int64(i), tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	a.finish = ch.FinishReason
	return a.response(), nil
}

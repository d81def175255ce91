package openai

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/openai/openai-go/v3"

	"github.com/agentls/agentls/agent"
)

// A long session resends its whole conversation with every request, and
// openai-go encodes each message through several MarshalJSON layers, each
// re-validating what the one below produced: encoding the request was the
// part of a turn that grew with the session (issue 16). The JSON of a
// message does not change from one request to the next, so the Model keeps
// it: a request encodes its new messages and copies the others. The bytes
// are those openai-go produces for the whole request
// (TestBody_I16_SameBytesAsOpenAIGo).

// messagesOpen starts the JSON openai-go produces for a request; the
// encoded messages go between it and the rest.
const messagesOpen = `{"messages":[`

// msgKey identifies a message for [msgCache]. Strings are compared by
// content (fast when they share their bytes, as the loop's messages do
// from one request to the next); the calls beyond the first are compared
// on a hit.
type msgKey struct {
	role                agent.Role
	content, toolCallID string
	first               agent.ToolCall
	calls               int
}

type encodedMsg struct {
	calls []agent.ToolCall
	json  []byte
}

// msgCache holds the encoded messages of the last requests, in two
// generations: a message unused for rotateEvery to 2×rotateEvery requests
// is dropped, so the cache stays about as large as the conversations in
// flight.
type msgCache struct {
	mu       sync.Mutex // guards the fields below
	cur      map[msgKey]*encodedMsg
	prev     map[msgKey]*encodedMsg
	requests int
	encoded  int // messages encoded, not copied (tests)
	// rests are the encoded rest of the last requests (model, options,
	// tools) for their tool lists: a run sends the same tools each turn.
	rests []encodedRest
}

type encodedRest struct {
	tools []agent.ToolSpec
	json  []byte
}

// maxRests bounds [msgCache.rests]: a run's tools, none (compaction), a
// sub-agent's.
const maxRests = 4

const rotateEvery = 4

// body returns the JSON body of req as openai-go would encode it (without
// the "stream" member it adds itself).
func (m *Model) body(req *agent.Request) ([]byte, error) {
	rest, err := m.cache.rest(m, req.Tools)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 || !bytes.HasPrefix(rest, []byte(messagesOpen+"]")) {
		// No messages (openai-go leaves the member out), or not the shape
		// this code knows (a new openai-go): encode it all.
		full, err := m.params(req)
		if err != nil {
			return nil, err
		}
		return full.MarshalJSON()
	}
	msgs, err := m.cache.encode(m, req.Messages)
	if err != nil {
		return nil, err
	}
	n := len(rest) + len(msgs)
	for _, b := range msgs {
		n += len(b)
	}
	out := make([]byte, 0, n)
	out = append(out, messagesOpen...)
	for i, b := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, rest[len(messagesOpen):]...), nil
}

// rest returns the JSON of a request with tools and no messages.
func (c *msgCache) rest(m *Model, tools []agent.ToolSpec) ([]byte, error) {
	c.mu.Lock()
	for _, r := range c.rests {
		if slices.EqualFunc(r.tools, tools, sameSpec) {
			c.mu.Unlock()
			return r.json, nil
		}
	}
	c.mu.Unlock()
	p, err := m.params(&agent.Request{Tools: tools})
	if err != nil {
		return nil, err
	}
	p.Messages = []openai.ChatCompletionMessageParamUnion{}
	rest, err := p.MarshalJSON()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rests) == maxRests {
		c.rests = c.rests[1:]
	}
	specs := slices.Clone(tools)
	for i := range specs {
		specs[i].Parameters = slices.Clone(specs[i].Parameters)
	}
	c.rests = append(c.rests, encodedRest{tools: specs, json: rest})
	return rest, nil
}

func sameSpec(a, b agent.ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}

// encode returns the JSON of each message, from the cache when it has it.
func (c *msgCache) encode(m *Model, msgs []agent.Message) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.requests%rotateEvery == 0 {
		c.prev, c.cur = c.cur, make(map[msgKey]*encodedMsg, len(c.cur))
	}
	c.requests++
	out := make([][]byte, len(msgs))
	for i := range msgs {
		msg := &msgs[i]
		k := msgKey{role: msg.Role, content: msg.Content, toolCallID: msg.ToolCallID, calls: len(msg.ToolCalls)}
		if len(msg.ToolCalls) > 0 {
			k.first = msg.ToolCalls[0]
		}
		e := c.cur[k]
		if e == nil {
			e = c.prev[k]
		}
		if e == nil || !slices.Equal(e.calls, msg.ToolCalls) {
			mp, err := m.message(msg)
			if err != nil {
				return nil, fmt.Errorf("openai: message %d: %w", i, err)
			}
			b, err := mp.MarshalJSON()
			if err != nil {
				return nil, fmt.Errorf("openai: message %d: %w", i, err)
			}
			e = &encodedMsg{calls: slices.Clone(msg.ToolCalls), json: b}
			c.encoded++
		}
		c.cur[k] = e
		out[i] = e.json
	}
	return out, nil
}

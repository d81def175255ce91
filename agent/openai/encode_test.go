package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// tricky are contents that JSON encoders treat differently: HTML
// characters, line and paragraph separators, control characters, invalid
// UTF-8, non-ASCII text.
var tricky = []string{"", "plain", "<a href=\"x\">&amp;</a>", "line\u2028sep\u2029", "tab\tnl\nnul\x00esc\x1b",
	"bad \xff\xfe utf-8", "日本語 ✓ 😀", `back\slash "quote"`}

func conversation(n int) []agent.Message {
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: "sys <b>"}, {Role: agent.RoleUser, Content: "task & more"}}
	for i := range n {
		c := tricky[i%len(tricky)]
		id := fmt.Sprintf("c%d", i)
		calls := []agent.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"a%d<&>.go"}`, i)}}
		if i%3 == 1 {
			calls = append(calls, agent.ToolCall{ID: id + "b", Name: "list_dir", Arguments: `{"path":`}) // cut (A3)
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: c, ToolCalls: calls})
		for _, tc := range calls {
			msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: tc.ID, Content: c + " result " + id})
		}
	}
	return append(msgs, agent.Message{Role: agent.RoleAssistant, Content: "done \u2028"})
}

func testModel(t *testing.T) *Model {
	t.Helper()
	m, err := New(&Options{Model: "m<1>", APIKey: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBody_I16_SameBytesAsOpenAIGo: the request body assembled from cached
// messages is byte for byte what openai-go encodes for the whole request,
// with and without tools, on the first request and on later ones (cache
// hits), and after a message changed under the same first call.
func TestBody_I16_SameBytesAsOpenAIGo(t *testing.T) {
	m := testModel(t)
	tools := []agent.ToolSpec{
		{Name: "read_file", Description: "Read <a> file & more.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "noparams"},
	}
	check := func(name string, req *agent.Request) {
		t.Helper()
		want, err := m.params(req)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := want.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.body(req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantJSON) {
			t.Fatalf("%s: body differs from openai-go's\n got %s\nwant %s", name, got, wantJSON)
		}
	}
	msgs := conversation(30)
	for turn := range 3 {
		check(fmt.Sprintf("turn %d with tools", turn), &agent.Request{Messages: msgs, Tools: tools})
		check(fmt.Sprintf("turn %d without tools", turn), &agent.Request{Messages: msgs})
		msgs = append(msgs[:len(msgs):len(msgs)], agent.Message{Role: agent.RoleUser, Content: tricky[turn]})
	}
	// The same key (role, content, first call, number of calls) with a
	// different second call must not hit the cache.
	changed := conversation(30)
	for i := range changed {
		if len(changed[i].ToolCalls) == 2 {
			changed[i].ToolCalls = []agent.ToolCall{changed[i].ToolCalls[0], {ID: "other", Name: "search", Arguments: `{"pattern":"x"}`}}
		}
	}
	check("second call changed", &agent.Request{Messages: changed, Tools: tools})
	check("empty conversation", &agent.Request{Tools: tools})
	other := slices.Clone(tools)
	other[0].Description = "Another description."
	check("tools changed", &agent.Request{Messages: msgs, Tools: other})
	check("tools back", &agent.Request{Messages: msgs, Tools: tools})
}

// TestBody_I16_EncodesOnlyNewMessages: in a session of 1,000 turns each
// request encodes the messages new since the last one and copies the
// rest, however long the conversation is; after a rewrite (compaction)
// only the rewritten messages are encoded again.
func TestBody_I16_EncodesOnlyNewMessages(t *testing.T) {
	m := testModel(t)
	tools := []agent.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}}
	msgs := conversation(0)[:2]
	for turn := range 1000 {
		if turn%100 == 99 { // compaction: summary replaces the middle
			msgs = append(msgs[:2:2], agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("summary %d", turn)})
		}
		id := fmt.Sprintf("t%d", turn)
		msgs = append(msgs,
			agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Content: strings.Repeat("line of the file\n", 80)})
		before := m.cache.encoded
		if _, err := m.body(&agent.Request{Messages: msgs, Tools: tools}); err != nil {
			t.Fatal(err)
		}
		want := 2
		if turn == 0 {
			want = len(msgs)
		} else if turn%100 == 99 {
			want = 3
		}
		if got := m.cache.encoded - before; got != want {
			t.Fatalf("turn %d (%d messages): encoded %d messages, want %d", turn, len(msgs), got, want)
		}
	}
}

// TestBody_I16_CacheBounded: the cache keeps the messages of the last
// few requests only (two generations of rotateEvery requests), however
// many requests go through.
func TestBody_I16_CacheBounded(t *testing.T) {
	m := testModel(t)
	msgs := conversation(10)
	for i := range 1000 {
		msgs[1].Content = fmt.Sprintf("task %d", i) // a new message each request
		msgs[2].Content = strings.Repeat("x", i)
		if _, err := m.body(&agent.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	n := len(m.cache.cur) + len(m.cache.prev)
	if limit := 2 * (len(msgs) + 2*rotateEvery); n > limit {
		t.Errorf("cache holds %d messages after 1000 requests of %d messages, want ≤ %d", n, len(msgs), limit)
	}
}

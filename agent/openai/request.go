package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentls/agentls/agent"
)

// params maps req onto a streaming chat-completions request. No tools
// means no tools field at all (compaction requests, A9).
func (m *Model) params(req *agent.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for i, msg := range req.Messages {
		mp, err := m.message(&msg)
		if err != nil {
			return p, fmt.Errorf("openai: message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, t := range req.Tools {
		schema := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			schema = nil
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return p, fmt.Errorf("openai: tool %s: parameters: %w", t.Name, err)
			}
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

// message maps one conversation message.
func (m *Model) message(msg *agent.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case agent.RoleSystem:
		return openai.SystemMessage(msg.Content), nil
	case agent.RoleUser:
		if len(msg.Images) == 0 {
			return openai.UserMessage(msg.Content), nil
		}
		return openai.UserMessage(userParts(msg)), nil
	case agent.RoleTool:
		return openai.ToolMessage(msg.Content, msg.ToolCallID), nil
	case agent.RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			a.Content.OfString = openai.String(msg.Content)
		}
		for _, tc := range msg.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      tc.Name,
						Arguments: m.historyArguments(&tc),
					},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", msg.Role)
}

// historyArguments returns the arguments of a past tool call as sent back to
// the model. Arguments that are not a JSON object (a cut stream, A3) become
// "{}": several servers (llama.cpp chat templates among them) parse them and
// reject the whole request otherwise. The call's tool result already tells
// the model what went wrong.
func (m *Model) historyArguments(tc *agent.ToolCall) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(tc.Arguments), &obj) == nil && obj != nil {
		return tc.Arguments
	}
	m.log.Debug("Replaced invalid tool-call arguments in history",
		slog.String("tool_call_id", tc.ID), slog.Int("bytes", len(tc.Arguments)))
	return "{}"
}

// userParts is a user message with images as content parts: its text,
// then each image as a base64 data URL (A12).
func userParts(msg *agent.Message) []openai.ChatCompletionContentPartUnionParam {
	parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(msg.Content)}
	for _, im := range msg.Images {
		url := "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return parts
}

package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/sandbox"
)

// maxReplayed bounds the text of one replayed tool result.
const maxReplayed = 2000

// replay sends a loaded session's conversation as session/updates, as
// session/load asks: user messages as user message chunks, the model's
// text as agent message chunks, each tool call with its result (the
// start of it), completed or failed. Control bytes are made visible.
func (a *acpAgent) replay(sid string, msgs []agent.Message) {
	p := &progress{a: a, sid: sid}
	kinds := map[string]string{} // tool call ID → tool
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleUser:
			p.send(sdk.UpdateUserMessageText(sandbox.VisibleText(m.Content)))
		case agent.RoleAssistant:
			if m.Content != "" {
				p.send(sdk.UpdateAgentMessageText(sandbox.VisibleText(m.Content)))
			}
			for _, c := range m.ToolCalls {
				kinds[c.ID] = c.Name
				p.send(sdk.StartToolCall(replayID(c.ID), c.Name, sdk.WithStartKind(toolKind(c.Name)),
					sdk.WithStartStatus(sdk.ToolCallStatusInProgress)))
			}
		case agent.RoleTool:
			if _, ok := kinds[m.ToolCallID]; !ok {
				continue
			}
			status := sdk.ToolCallStatusCompleted
			if strings.HasPrefix(m.Content, `{"code":`) {
				status = sdk.ToolCallStatusFailed
			}
			p.send(sdk.UpdateToolCall(replayID(m.ToolCallID), sdk.WithUpdateStatus(status),
				sdk.WithUpdateContent(textContent(cutRunes(sandbox.VisibleText(m.Content), maxReplayed)))))
		}
	}
}

func replayID(id string) sdk.ToolCallId { return sdk.ToolCallId("history-" + id) }

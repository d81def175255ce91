package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeActionKind is the kind of agentls's code actions.
const codeActionKind = protocol.CodeActionKind("refactor.agentls")

// codeAction offers plan, review and execute for the selected range (E2).
// Plan and execute arguments carry no instruction: the editor plugins ask
// the user for one before running the command.
func (s *Server) codeAction(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	arg := map[string]any{"uri": p.TextDocument.URI.String(), "range": p.Range}
	actions := []map[string]any{}
	for _, c := range []struct{ title, cmd string }{
		{"agentls: Plan…", CommandPlan},
		{"agentls: Review selection", CommandReview},
		{"agentls: Execute…", CommandExecute},
	} {
		actions = append(actions, map[string]any{
			"title": c.title, "kind": codeActionKind,
			"command": map[string]any{"title": c.title, "command": c.cmd, "arguments": []any{arg}},
		})
	}
	raw, err := json.Marshal(actions)
	if err != nil {
		return nil, err
	}
	return jsonrpc2.RawMessage(raw), nil
}

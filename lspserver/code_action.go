package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
)

// codeAction offers plan, review and execute for the selected range (E2).
// Their one argument is a [command.Target], without an instruction: the
// editor plugins ask the user for one before running the command.
func (s *Server) codeAction(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	arg, err := json.Marshal(command.Target{URI: p.TextDocument.URI.String(), Range: &p.Range})
	if err != nil {
		return nil, err
	}
	kind := protocol.CodeActionKind(command.CodeActionKind)
	var actions []protocol.CodeAction
	for _, c := range []struct{ title, cmd string }{
		{"agentls: Plan…", command.Plan},
		{"agentls: Review selection", command.Review},
		{"agentls: Execute…", command.Execute},
	} {
		actions = append(actions, protocol.CodeAction{
			Title: c.title, Kind: &kind,
			Command: protocol.Command{Title: c.title, Command: c.cmd, Arguments: []protocol.LSPAny{arg}},
		})
	}
	return actions, nil
}

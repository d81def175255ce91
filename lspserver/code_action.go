package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// codeAction offers plan, review and execute for the selected range (E2,
// E19). With an "agentls:" comment in the selection, or on or right above
// the cursor's line (instruction_comment.go), plan and execute carry that
// instruction: "agentls: Plan “…”". Without one, our own plugins get
// "Plan…" and "Execute…" with a [command.Target] alone, and ask the user
// for the instruction; any other client has no input box for it, so it is
// offered review alone, which needs none. For those clients every action
// also asks to be detached ([command.Args.Detach]): the command answers at
// once and the run reports as it goes (execute_detached.go).
func (s *Server) codeAction(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	own := s.caps.ownPlugin
	s.mu.Unlock()
	target := command.Target{URI: p.TextDocument.URI.String(), Range: &p.Range}
	instruction := s.rangeInstruction(ctx, target.URI, p.Range)
	var offers []offer
	switch {
	case instruction != "":
		title := "“" + instructionTitle(instruction) + "”"
		offers = []offer{{"agentls: Plan " + title, command.Plan, instruction},
			{"agentls: Review selection", command.Review, ""}, {"agentls: Execute " + title, command.Execute, instruction}}
	case own:
		offers = []offer{{"agentls: Plan…", command.Plan, ""},
			{"agentls: Review selection", command.Review, ""}, {"agentls: Execute…", command.Execute, ""}}
	default:
		offers = []offer{{"agentls: Review selection", command.Review, ""}}
	}
	kind := protocol.CodeActionKind(command.CodeActionKind)
	actions := []protocol.CodeAction{}
	for _, o := range offers {
		arg, err := o.argument(target, !own)
		if err != nil {
			return nil, err
		}
		actions = append(actions, protocol.CodeAction{
			Title: o.title, Kind: &kind,
			Command: protocol.Command{Title: o.title, Command: o.cmd, Arguments: []protocol.LSPAny{arg}},
		})
	}
	return actions, nil
}

// offer is one code action: its title, command and instruction.
type offer struct{ title, cmd, instruction string }

// argument is the offer's command argument, a [command.Args]: the target
// alone when the plugin asks for the instruction; with it, and with
// detach for a client that is not ours.
func (o offer) argument(t command.Target, detach bool) ([]byte, error) {
	if o.instruction == "" && !detach {
		return json.Marshal(t)
	}
	return json.Marshal(struct {
		command.Target
		Instruction string `json:"instruction,omitempty"`
		Detach      bool   `json:"detach,omitempty"`
	}{t, o.instruction, detach})
}

// rangeInstruction reads the document (the open buffer, else the disk)
// and returns the instruction of its "agentls:" comment at r; "" when
// there is none or the file cannot be read.
func (s *Server) rangeInstruction(ctx context.Context, rawURI string, r protocol.Range) string {
	rel, err := s.resolveTarget(rawURI)
	if err != nil || rel == "." {
		return ""
	}
	root, err := sandbox.OpenRoot(s.root)
	if err != nil {
		return ""
	}
	defer root.Close()
	text, err := (&workspace{s: s, root: root}).ReadFile(ctx, rel)
	if err != nil {
		return ""
	}
	return commentInstruction(string(text), r)
}

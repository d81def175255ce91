package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// executeCommand runs one of agentls's commands (E2, E3). A run's reply
// waits for its result, unless its argument asks to be detached (E19):
// then it answers as soon as the run has started (execute_detached.go).
func (s *Server) executeCommand(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams("executeCommand: " + err.Error())
	}
	switch p.Command {
	case command.Cancel:
		return s.cancelCommand(p.Arguments)
	case command.Revert:
		return s.revertCommand(ctx, p.Arguments)
	}
	mode, ok := commandModes[p.Command]
	if !ok {
		return nil, invalidParams(fmt.Sprintf("unknown command %q; want one of %s", p.Command, strings.Join(command.All, ", ")))
	}
	if len(p.Arguments) != 1 {
		return nil, invalidParams(fmt.Sprintf("%s takes one argument {uri, range?, instruction, sessionId?}, got %d", p.Command, len(p.Arguments)))
	}
	var a command.Args
	if err := decodeArg(p.Arguments[0], &a); err != nil {
		return nil, invalidParams(fmt.Sprintf("%s argument: %v", p.Command, err))
	}
	if a.URI == "" {
		return nil, invalidParams(p.Command + ": uri is required")
	}
	a.Instruction = strings.TrimSpace(a.Instruction)
	instruction, err := instructionFor(mode, &a)
	if err != nil {
		return nil, invalidParams(p.Command + ": " + err.Error())
	}
	a.Instruction = instruction
	if a.Instruction, err = s.imageRefs(&a); err != nil {
		return nil, err
	}
	if a.Detach {
		return s.startDetached(ctx, mode, &a)
	}
	return rawResult(s.runAgent(ctx, mode, &a))
}

// decodeArg decodes a command's argument into v, refusing unknown fields.
func decodeArg(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// rawResult is a command's result, or its error, as the reply: encoded
// with encoding/json, for the omitempty rules the command package
// documents.
func rawResult[T any](res *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return jsonrpc2.RawMessage(raw), nil
}

// resolveTarget checks the command's URI and returns it as a
// workspace-relative path ("." for the root).
func (s *Server) resolveTarget(raw string) (string, error) {
	u, err := uri.Parse(raw)
	if err != nil || u.Scheme() != "file" {
		return "", invalidParams(fmt.Sprintf("uri %q is not a file URI", raw))
	}
	rel, err := sandbox.ResolvePath(s.root, u.FsPath())
	if err != nil {
		return "", failf(ReasonPathEscape, fmt.Sprintf("uri %q is outside the workspace", raw))
	}
	return rel, nil
}

func (s *Server) cancelCommand(args []json.RawMessage) (any, error) {
	var ids []string
	switch len(args) {
	case 0:
		s.mu.Lock()
		for id := range s.runs {
			ids = append(ids, id)
		}
		s.mu.Unlock()
	case 1:
		var a command.CancelArgs
		if err := json.Unmarshal(args[0], &a); err != nil || a.SessionID == "" {
			return nil, invalidParams(`agentls.cancel takes {"sessionId": "..."} or no argument`)
		}
		ids = []string{a.SessionID}
	default:
		return nil, invalidParams("agentls.cancel takes at most one argument")
	}
	cancelled := []string{} // [] rather than null when none
	for _, id := range ids {
		if s.cancelRun(id) {
			cancelled = append(cancelled, id)
		}
	}
	return rawResult(&command.CancelResult{Cancelled: cancelled}, nil)
}

// wireSteps mirrors the run's steps in the result. The conversion needs
// agent.Step and command.Step to have the same fields: a new field in
// agent.Step fails to compile here until the wire decides about it.
func wireSteps(steps []agent.Step) []command.Step {
	var out []command.Step
	for _, st := range steps {
		out = append(out, command.Step(st))
	}
	return out
}

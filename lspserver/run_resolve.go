package lspserver

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// readRef reads a file named by an @path reference in the instruction
// (A12), through the workspace, so open buffers win.
func (r *run) readRef(ctx context.Context, p string) ([]byte, error) {
	rel, err := sandbox.ResolvePath(r.ws.s.root, p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", agent.ErrPathRefused, err)
	}
	return r.ws.ReadFile(ctx, rel)
}

// runPolicy loads the policy for a run, so that edits to policy files
// apply to the next run, and shows its warnings. A policy file that does
// not load keeps the last good policy, with a warning; with none, the run
// fails.
func (s *Server) runPolicy(ctx context.Context) (*tools.Policy, error) {
	policy, kept, err := s.loadPolicy()
	switch {
	case err != nil && !kept:
		return nil, failf(ReasonPolicyInvalid, err.Error())
	case kept:
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: the policy does not load ("+err.Error()+"); this run uses the previous good policy")
	}
	for _, w := range policy.Warnings {
		s.logMessage(ctx, protocol.MessageTypeWarning, "agentls policy: "+w)
	}
	return policy, nil
}

// runModel returns the model for a run.
func (s *Server) runModel() (agent.Model, error) {
	if s.opts.NewModel == nil {
		return nil, failf(ReasonModelUnavailable, "no model is configured; set OPENAI_BASE_URL and AGENTLS_MODEL")
	}
	model, err := s.opts.NewModel()
	if err != nil {
		return nil, failf(ReasonModelUnavailable, err.Error())
	}
	return model, nil
}

// maxSelection bounds the selected text inlined into the task.
const maxSelection = 20000

// task builds the first user message: instruction, file and selection.
func (s *Server) task(ctx context.Context, ws *workspace, rel string, a *command.Args) (prompts.TaskData, error) {
	// The agent cuts input over 100,000 characters and inlines @path
	// references (A12).
	t := prompts.TaskData{Instruction: a.Instruction}
	if rel != "." {
		t.Path = rel
	}
	if a.Range == nil || rel == "." {
		return t, nil
	}
	content, err := ws.ReadFile(ctx, rel)
	if err != nil {
		return t, invalidParams(fmt.Sprintf("cannot read %s for the range", rel))
	}
	text := string(content)
	start, err1 := offset(text, a.Range.Start)
	end, err2 := offset(text, a.Range.End)
	if err1 != nil || err2 != nil || end < start {
		return t, invalidParams(fmt.Sprintf("range is not inside %s", rel))
	}
	t.Range = fmt.Sprintf("L%d:C%d-L%d:C%d", a.Range.Start.Line+1, a.Range.Start.Character+1, a.Range.End.Line+1, a.Range.End.Character+1)
	sel := text[start:end]
	if len(sel) > maxSelection {
		sel = strings.ToValidUTF8(sel[:maxSelection], "") + "\n[selection cut; read the file for the rest]"
	}
	t.Selection = sel
	return t, nil
}

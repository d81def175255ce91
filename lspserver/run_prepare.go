package lspserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// run is one plan, review or execute command, resolved once at its start
// and passed down: what it is about, the policy it runs under, and the
// per-run pieces its tools report to. opts is what the agent loop gets;
// [Server.equip] adds the gateway and runAgent the progress reporter.
type run struct {
	id     string // the session's ID, set by [Server.beginSession]
	runID  string // the run's ID in its session
	srun   *session.Run
	mode   agent.Mode
	rel    string // the target, workspace-relative; "." for the root
	policy *tools.Policy
	ws     *workspace // reads through the run's os.Root; close releases it
	log    *slog.Logger
	counts *editCounts
	sink   *findingSink
	prop   *proposer
	opts   *agent.RunOptions
	ext    Extensions // the connection's hooks and MCP servers; nil: none
}

// prepareRun resolves a command into a run: its target, workspace, task,
// policy and model. Each failure is the command's wire error.
func (s *Server) prepareRun(ctx context.Context, mode agent.Mode, a *command.Args) (*run, error) {
	rel, err := s.resolveTarget(a.URI)
	if err != nil {
		return nil, err
	}
	root, err := sandbox.OpenRoot(s.root)
	if err != nil {
		return nil, failf(ReasonInternal, "cannot open the workspace")
	}
	r := &run{mode: mode, rel: rel, ws: &workspace{s: s, root: root}, counts: &editCounts{}}
	task, err := s.task(ctx, r.ws, rel, a)
	if err == nil {
		r.policy, err = s.runPolicy(ctx)
	}
	var model agent.Model
	if err == nil {
		model, err = s.runModel()
	}
	if err != nil {
		r.close()
		return nil, err
	}
	r.log = s.log.With(slog.String("mode", mode.String()))
	r.sink = &findingSink{s: s, ws: r.ws}
	r.prop = &proposer{s: s, ws: r.ws, counts: r.counts, timeout: r.policy.QuestionTimeout()}
	r.opts = &agent.RunOptions{Model: model, Mode: mode, Task: task, Logger: r.log, ReadRef: r.readRef,
		MaxTurns: s.opts.MaxTurns, ContextTokens: s.opts.ContextTokens, Strict: s.opts.Strict}
	return r, nil
}

// close releases the run's workspace root.
func (r *run) close() { r.ws.root.Close() }

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

package lspserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// runState is one running agent session.
type runState struct {
	id     string
	cancel context.CancelFunc
}

// maxSelection bounds the selected text inlined into the task.
const maxSelection = 20000

func (s *Server) runAgent(ctx context.Context, mode string, a *command.Args) (*command.Result, error) {
	rel, err := s.resolveTarget(a.URI)
	if err != nil {
		return nil, err
	}
	root, err := sandbox.OpenRoot(s.root)
	if err != nil {
		return nil, failf(ReasonInternal, "cannot open the workspace")
	}
	defer root.Close()
	ws := &workspace{s: s, root: root}
	task, err := s.task(ctx, ws, rel, a)
	if err != nil {
		return nil, err
	}
	policy := tools.DefaultPolicy(tools.ProfileEditor)
	if s.opts.LoadPolicy != nil {
		if policy, err = s.opts.LoadPolicy(s.root); err != nil {
			return nil, failf(ReasonPolicyInvalid, err.Error())
		}
	}
	for _, w := range policy.Warnings {
		s.logMessage(ctx, protocol.MessageTypeWarning, "agentls policy: "+w)
	}
	if s.opts.NewModel == nil {
		return nil, failf(ReasonModelUnavailable, "no model is configured; set OPENAI_BASE_URL and AGENTLS_MODEL")
	}
	model, err := s.opts.NewModel()
	if err != nil {
		return nil, failf(ReasonModelUnavailable, err.Error())
	}

	id := newSessionID()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.runs[id] = &runState{id: id, cancel: cancel}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.runs, id)
		s.mu.Unlock()
	}()
	log := s.log.With(slog.String("session", id), slog.String("mode", mode))
	log.Info("Run started", slog.String("target", rel))

	counts := &editCounts{}
	sink := &findingSink{s: s, ws: ws}
	prop := &proposer{s: s, ws: ws, counts: counts}
	env := &tools.Env{Root: s.root, Workspace: ws, Findings: sink, Logger: log, Approver: approver{s},
		Reads: tools.NewReadTracker()}
	policy.Apply(env)
	allowed := tools.PlanTools
	switch mode {
	case "review":
		allowed = tools.ReviewTools
	case "execute":
		allowed = tools.ExecuteTools
		if policy.HTTP != nil && len(policy.HTTP.Allow) > 0 {
			allowed = append(slices.Clone(allowed), tools.NetworkTools...)
		}
		env.Edits = prop
		env.Sync = prop.flush
	}
	// Sub-agents only in execute runs: plan and review offer nothing but
	// their read tools (E4).
	if _, err := s.reg.Lookup(agent.SubAgentToolName); err == nil && mode == "execute" {
		allowed = append(slices.Clone(allowed), agent.SubAgentToolName)
	}
	newRunner := func(allowed []string) agent.ToolRunner {
		return tools.NewRunner(s.reg, env, &tools.RunnerOptions{
			Allowed: allowed, ReadOnly: mode != "execute", Logger: log,
			Policy: policy, Approver: approver{s}, Session: s.sess, Audit: s.opts.Audit, SessionID: id,
		})
	}
	prog := s.beginProgress(rctx, id, "agentls "+mode)
	out := agent.Run(rctx, &agent.RunOptions{
		Model: model, Tools: newRunner(allowed), NewRunner: newRunner, Mode: mode, Task: task,
		MaxTurns: s.opts.MaxTurns, ContextTokens: s.opts.ContextTokens, Strict: s.opts.Strict,
		Reporter: prog, Logger: log,
		ReadRef: func(ctx context.Context, p string) ([]byte, error) {
			rel, err := sandbox.ResolvePath(s.root, p)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", agent.ErrPathRefused, err)
			}
			return ws.ReadFile(ctx, rel)
		},
	})

	res := &command.Result{SessionID: id, Status: command.Status(out.Status), Summary: out.Summary, Steps: wireSteps(out.Steps),
		Edits: counts.wire(), Incomplete: out.Incomplete}
	if mode == "review" && out.Status == agent.StatusDone {
		s.fallbackFindings(rctx, sink, out.Summary, log)
	}
	if mode == "review" {
		sink.publish(ctx)
		for _, f := range sink.all() {
			res.Findings = append(res.Findings, command.Finding(f))
		}
	}
	if mode == "execute" && ctx.Err() == nil {
		if left := prop.flush(ctx); len(left) > 0 {
			res.Summary = strings.TrimSpace(res.Summary + fmt.Sprintf("\n(not saved to disk yet: %s)", strings.Join(left, ", ")))
		}
	}
	prog.end(string(out.Status))
	log.Info("Run ended", slog.String("status", string(out.Status)), slog.Int("turns", out.Turns))

	switch {
	case out.Status == agent.StatusCancelled && ctx.Err() != nil:
		return nil, ctx.Err() // the request itself was cancelled: -32800
	case out.Status == agent.StatusFailed && out.Err != nil && !isBudget(out.Err):
		return nil, out.Err // model failures: RequestFailed with a reason
	}
	return res, nil
}

// fallbackFindings turns "path:line: message" lines of the final answer
// into findings; those the sink refuses are dropped with an event.
func (s *Server) fallbackFindings(ctx context.Context, sink *findingSink, text string, log *slog.Logger) {
	for _, f := range tools.ParseFindings(text) {
		if err := sink.Report(ctx, f); err != nil {
			log.Info("Dropped finding", slog.String("why", err.Error()))
			s.logMessage(ctx, protocol.MessageTypeInfo, "agentls: dropped a finding: "+err.Error())
		}
	}
}

func isBudget(err error) bool { return errors.Is(err, agent.ErrBudgetExhausted) }

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

// cancelRun cancels the run with the given session ID.
func (s *Server) cancelRun(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	if ok {
		r.cancel()
	}
	return ok
}

func newSessionID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

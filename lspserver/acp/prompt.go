package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// Prompt runs the agent on the prompt in the session's mode and answers
// with its stop reason once the run has ended; everything on the way is
// a session/update.
func (a *acpAgent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s := a.session(string(p.SessionId))
	if s == nil {
		return sdk.PromptResponse{}, invalid("no session %q: session/new or session/load it first", p.SessionId)
	}
	mode := s.currentMode()
	instruction := promptText(s.pl.root, p.Prompt)
	if strings.TrimSpace(instruction) == "" {
		if instruction = mode.DefaultInstruction(); instruction == "" {
			return sdk.PromptResponse{}, invalid("the prompt has no text")
		}
	}
	ctx, end, err := a.track(ctx, s)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer end()
	instruction = s.reasonPrompt(instruction)
	r, err := a.newRun(ctx, s, mode, instruction)
	if err != nil {
		if ctx.Err() != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		return sdk.PromptResponse{}, err
	}
	defer r.ws.root.Close()
	out := r.ar.Execute()
	r.ar.End(out)
	s.keepReason(r.prog)
	r.finish(out)
	return stopReason(out)
}

// track gives the prompt a context that session/cancel and the end of
// the connection cancel, and counts it as running.
func (a *acpAgent) track(ctx context.Context, s *acpSession) (context.Context, func(), error) {
	a.mu.Lock()
	if a.stopCtx.Err() != nil {
		a.mu.Unlock()
		return nil, nil, sdk.NewInternalError(map[string]any{"error": "agentls is shutting down"})
	}
	a.runs.Add(1)
	a.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(a.stopCtx, cancel)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		stop()
		cancel()
		a.runs.Done()
	}, nil
}

// run is one prompt's run: the agentrun run, its workspace and progress.
type run struct {
	ar   *agentrun.Run
	ws   *workspace
	prog *progress
	mode agent.Mode
}

// newRun resolves the prompt (policy, model, workspace) into the options
// of agentrun and opens the run in the session, waiting for its earlier
// runs (A11).
func (a *acpAgent) newRun(ctx context.Context, s *acpSession, mode agent.Mode, instruction string) (*run, error) {
	dir := s.pl.root
	policy, err := a.policy(dir)
	if err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": "the policy does not load: " + err.Error()})
	}
	if a.o.NewModel == nil {
		return nil, sdk.NewInternalError(map[string]any{"error": "no model is configured; set OPENAI_BASE_URL and AGENTLS_MODEL"})
	}
	model, err := a.o.NewModel()
	if err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	root, err := sandbox.OpenRoot(dir)
	if err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": "cannot open the workspace"})
	}
	caps := a.clientCaps()
	ws := &workspace{a: a, sid: s.id, dir: dir, root: root, client: caps.Fs.ReadTextFile, writes: caps.Fs.WriteTextFile}
	prog := &progress{a: a, sid: s.id, root: dir}
	for _, w := range policy.Warnings {
		prog.warn("policy: " + w)
	}
	ctx = withProgress(ctx, prog)
	ar, err := agentrun.New(ctx, a.options(s, mode, instruction, policy, model, ws, prog))
	if err != nil {
		root.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return &run{ar: ar, ws: ws, prog: prog, mode: mode}, nil
}

func (a *acpAgent) policy(root string) (*tools.Policy, error) {
	if a.o.LoadPolicy != nil {
		return a.o.LoadPolicy(root)
	}
	return tools.LoadPolicy(tools.ProfileEditor, "", filepath.Join(root, ".agentls", "policy.json"))
}

// options are the resolved prompt as agentrun takes it.
func (a *acpAgent) options(s *acpSession, mode agent.Mode, instruction string, policy *tools.Policy, model agent.Model,
	ws *workspace, prog *progress) *agentrun.Options {
	log := a.log.With("mode", mode.String())
	readRef := func(ctx context.Context, p string) ([]byte, error) {
		rel, err := sandbox.ResolvePath(ws.dir, p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", agent.ErrPathRefused, err)
		}
		return ws.ReadFile(ctx, rel)
	}
	ag := &agent.RunOptions{Model: model, Mode: mode, Task: prompts.TaskData{Instruction: instruction}, Logger: log,
		ReadRef: readRef, MaxTurns: a.o.MaxTurns, ContextTokens: a.o.ContextTokens, Strict: a.o.Strict}
	ask := approver{prog}
	return &agentrun.Options{Root: ws.dir, Mode: mode, Target: ".", Agent: ag, Store: s.pl.store, Session: s.sess,
		Instruction: instruction,
		Gateway: tools.GatewayOptions{Root: ws.dir, Workspace: ws, Findings: &findings{p: prog, ws: ws}, Exec: a.o.Exec,
			Policy: policy, Approver: ask, Allowances: a.allow, Audit: a.o.Audit},
		Registry: a.reg, Answers: policy.Profile != tools.ProfileCI, SubAgents: a.subAgents,
		Edits:     &proposer{p: prog, ws: ws, timeout: policy.QuestionTimeout()},
		Workspace: ws, FrontEnd: frontEnd{a: a, pl: s.pl, prog: prog, ask: ask}, Logger: log}
}

// frontEnd is what a run of package agentrun asks of the ACP front-end.
type frontEnd struct {
	a    *acpAgent
	pl   *place
	prog *progress
	ask  tools.Approver
}

var _ agentrun.FrontEnd = frontEnd{}

func (f frontEnd) Extensions(ctx context.Context) agentrun.Extensions {
	return observed{inner: f.a.extensions(ctx, f.pl, f.ask)}
}

// Track: the prompt's context is already the one session/cancel
// cancels; the run's carries its progress.
func (f frontEnd) Track(ctx context.Context, _ string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(withProgress(ctx, f.prog))
	return ctx, cancel
}

func (f frontEnd) Begin(context.Context, string, agent.Mode, string) agentrun.Progress { return f.prog }

func (f frontEnd) Warn(_ context.Context, msg string) {
	f.a.log.Warn(msg)
	f.prog.warn(msg)
}

// finish sends what the end of a run adds: a plan's entries.
func (r *run) finish(out *agent.Outcome) {
	if r.mode != agent.ModePlan || out.Status != agent.StatusDone {
		return
	}
	if entries := planEntries(out.Summary); len(entries) > 0 {
		r.prog.send(sdk.UpdatePlan(entries...))
	}
}

// stopReason is the prompt's answer for the run's outcome: a failure is
// the request's error, with what went wrong.
func stopReason(out *agent.Outcome) (sdk.PromptResponse, error) {
	switch {
	case out.Status == agent.StatusDone:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case out.Status == agent.StatusCancelled:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case errors.Is(out.Err, agent.ErrBudgetExhausted):
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	}
	return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": sandbox.VisibleText(out.Summary)})
}

// promptText is the instruction of a prompt: its text, its links to
// workspace files as @path references (inlined by the agent, A12), its
// embedded text resources quoted.
func promptText(root string, blocks []sdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			if rel := workspacePath(root, b.ResourceLink.Uri); rel != "" {
				parts = append(parts, "@"+rel)
			}
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			t := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("Context from %s:\n```\n%s\n```", t.Uri, t.Text))
		}
	}
	return strings.Join(parts, "\n")
}

// workspacePath is the workspace-relative path of a file:// URI inside
// root; "" for anything else.
func workspacePath(root, uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	rel, err := sandbox.ResolvePath(root, u.Path)
	if err != nil || strings.ContainsAny(rel, " \t\n") {
		return ""
	}
	return rel
}

// planEntries are the list items of a plan's answer ("1. …", "- …"),
// each a pending entry; an answer without a list gives none.
func planEntries(summary string) []sdk.PlanEntry {
	var out []sdk.PlanEntry
	for line := range strings.Lines(summary) {
		item, ok := listItem(strings.TrimSpace(line))
		if ok && item != "" {
			out = append(out, sdk.PlanEntry{Content: sandbox.Visible(item), Priority: sdk.PlanEntryPriorityMedium,
				Status: sdk.PlanEntryStatusPending})
		}
	}
	return out
}

func listItem(line string) (string, bool) {
	for _, p := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(line, p); ok {
			return strings.TrimSpace(rest), true
		}
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		return strings.TrimSpace(line[i+1:]), true
	}
	return "", false
}

package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// proposer implements agentrun.Proposer for ACP: a change is put to the
// user one hunk at a time, each a session/request_permission with its
// diff on the run's current tool call, and only the accepted hunks land,
// after a last check that the file is still what the change was computed
// against (T17): through the client's fs/write_text_file when it offers
// it, else with sandbox.Root.WriteFileAtomic. A new file is one question
// (E18). Edits offer no "allow always": each hunk is asked.
type proposer struct {
	p       *progress
	ws      *workspace
	timeout time.Duration // the policy's question timeout, per question

	mu      sync.Mutex
	pending map[string]string // written through the client, not yet seen on disk
}

var _ agentrun.Proposer = (*proposer)(nil)

func (pr *proposer) Propose(ctx context.Context, ch *tools.FileChange) (*tools.EditOutcome, error) {
	if out := pr.check(ctx, ch); out != nil {
		return out, nil
	}
	control, _ := sandbox.IsControlPath(ch.Path)
	control = control || ch.Control
	old := string(ch.Old)
	hs := tools.Hunks(old, string(ch.New))
	if ch.Create {
		hs = []tools.Hunk{{Start: 0, End: 0, Repl: string(ch.New), Lines: "all (new file)"}}
	}
	if len(hs) == 0 {
		return &tools.EditOutcome{Applied: true, Saved: true, Reason: "no change"}, nil
	}
	take := make([]bool, len(hs))
	c := pr.p.current(ch.Tool)
	if what := pr.p.explainingAt(); what != "" && !(ch.Preapproved && !control) {
		return pr.noted(c, ch, &tools.EditOutcome{Hunks: markNone(outcomes(hs, take)), Reason: declinedForReason(what)}), nil
	}
	k := pr.startChecks(ctx, c, ch, control) // E22 (checks.go)
	defer k.finish()
	stopped := -1
	for i := range hs {
		if ch.Preapproved && !control {
			take[i] = true
			continue
		}
		pick, err := pr.askHunk(ctx, c, ch, control, hs, i, k)
		if err != nil {
			return nil, err // cancelled: nothing of this change lands
		}
		take[i] = pick == optAllowOnce
		if pick == optRejectExplain {
			pr.p.explain(hunkName(ch, hs, i))
			stopped = i
			break
		}
	}
	out := pr.land(ctx, c, ch, hs, take)
	if stopped >= 0 {
		explainedHunks(out, stopped)
		out.Reason = strings.TrimPrefix(out.Reason+"; ", "; ") + declinedForReason(hunkName(ch, hs, stopped))
	}
	return out, nil
}

// outcomes are the hunks' outcomes for take.
func outcomes(hs []tools.Hunk, take []bool) []tools.HunkOutcome {
	out := make([]tools.HunkOutcome, len(hs))
	for i, h := range hs {
		out[i] = tools.HunkOutcome{Index: i, Lines: h.Lines, Applied: take[i]}
	}
	return out
}

// check refuses a change outside the workspace or to agentls' own
// control files, and one whose file is no longer what it was computed
// against.
func (pr *proposer) check(ctx context.Context, ch *tools.FileChange) *tools.EditOutcome {
	if rel, err := sandbox.ResolvePath(pr.ws.dir, ch.Path); err != nil || rel != ch.Path {
		return &tools.EditOutcome{Reason: ch.Path + " is outside the workspace"}
	}
	if _, own := sandbox.IsControlPath(ch.Path); own {
		return &tools.EditOutcome{Reason: ch.Path + " is one of agentls' own control files"}
	}
	return pr.stale(ctx, ch, "changed since it was read")
}

// stale is the stale refusal of ch when the file is not what it was
// computed against (with the new content's hash), nil when it is.
func (pr *proposer) stale(ctx context.Context, ch *tools.FileChange, why string) *tools.EditOutcome {
	cur, err := pr.ws.ReadFile(ctx, ch.Path)
	exists := err == nil
	switch {
	case ch.Create && exists:
		return &tools.EditOutcome{Stale: true, Reason: ch.Path + " was created meanwhile; read it first"}
	case !ch.Create && !exists:
		return &tools.EditOutcome{Stale: true, Reason: ch.Path + " " + why + ": it no longer exists; list the directory again"}
	case !ch.Create && string(cur) != string(ch.Old):
		return &tools.EditOutcome{Stale: true, Reason: fmt.Sprintf("%s %s; its content is now sha256:%s. Read it again and recompute the change",
			ch.Path, why, tools.HashContent(cur))}
	}
	return nil
}

// askHunk asks about hunk i with its diff: the file with this hunk alone
// applied, so that the client shows it in context.
func (pr *proposer) askHunk(ctx context.Context, c *toolCall, ch *tools.FileChange, control bool, hs []tools.Hunk, i int, k *checks) (string, error) {
	old, h := string(ch.Old), hs[i]
	diff := sdk.ToolDiffContent(pr.ws.abs(ch.Path), applyHunks(old, hs, func(j int) bool { return j == i }), old)
	if ch.Create {
		diff = sdk.ToolDiffContent(pr.ws.abs(ch.Path), string(ch.New))
	}
	content := []sdk.ToolCallContent{diff}
	if control {
		w := ch.Warning
		if w == "" {
			w = tools.ControlWarning
		}
		content = append(textContent(w), diff)
	}
	if l := k.line(ctx); l != "" {
		content = append(content, textContent(l)...)
	}
	line := hunkLine(h, old)
	c.locate(sdk.ToolCallLocation{Path: pr.ws.abs(ch.Path), Line: &line})
	title := fmt.Sprintf("Edit %s: hunk %d of %d (lines %s)", sandbox.Visible(ch.Path), i+1, len(hs), h.Lines)
	opts := []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Apply this hunk", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optRejectOnce, Name: "Skip this hunk", Kind: sdk.PermissionOptionKindRejectOnce},
		explainOption,
	}
	qctx, cancel := context.WithTimeout(ctx, pr.timeout)
	defer cancel()
	pick, err := pr.p.ask(qctx, c, title, content, opts)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		pr.p.a.log.Warn("Hunk question unanswered; skipping it: " + err.Error())
		return optRejectOnce, nil
	}
	return pick, nil
}

// land writes the accepted hunks, once the file is checked again, and
// reports each hunk to the tool call and the model.
func (pr *proposer) land(ctx context.Context, c *toolCall, ch *tools.FileChange, hs []tools.Hunk, take []bool) *tools.EditOutcome {
	out := &tools.EditOutcome{}
	var skipped []string
	for i, h := range hs {
		out.Hunks = append(out.Hunks, tools.HunkOutcome{Index: i, Lines: h.Lines, Applied: take[i]})
		if !take[i] {
			skipped = append(skipped, fmt.Sprintf("%d (lines %s)", i+1, h.Lines))
		}
	}
	if len(skipped) == len(hs) {
		out.Hunks, out.Reason = markNone(out.Hunks), fmt.Sprintf("the user rejected the change to %s", ch.Path)
		return pr.noted(c, ch, out)
	}
	if st := pr.stale(ctx, ch, "changed while the change waited for approval"); st != nil {
		st.Hunks = markNone(out.Hunks)
		return pr.noted(c, ch, st)
	}
	content := applyHunks(string(ch.Old), hs, func(i int) bool { return take[i] })
	saved, err := pr.ws.write(ctx, ch.Path, []byte(content))
	if err != nil {
		for i := range take {
			if take[i] {
				c.note(fmt.Sprintf("%s hunk %d (lines %s): accepted, but not written", sandbox.Visible(ch.Path), i+1, hs[i].Lines))
			}
		}
		return pr.noted(c, ch, &tools.EditOutcome{Hunks: markNone(out.Hunks), Reason: fmt.Sprintf("write %s: %v", ch.Path, err)})
	}
	out.Applied, out.Saved = true, saved
	if !saved {
		pr.mu.Lock()
		if pr.pending == nil {
			pr.pending = map[string]string{}
		}
		pr.pending[ch.Path] = content
		pr.mu.Unlock()
	}
	if len(skipped) > 0 {
		out.Reason = fmt.Sprintf("the user rejected hunk %s of %s; the other hunks were applied", strings.Join(skipped, ", "), ch.Path)
	}
	return pr.noted(c, ch, out)
}

func markNone(hs []tools.HunkOutcome) []tools.HunkOutcome {
	for i := range hs {
		hs[i].Applied = false
	}
	return hs
}

// noted tells the tool call what became of each hunk.
func (pr *proposer) noted(c *toolCall, ch *tools.FileChange, out *tools.EditOutcome) *tools.EditOutcome {
	for _, h := range out.Hunks {
		what := "rejected"
		switch {
		case out.Reason != "" && strings.HasPrefix(out.Reason, "write "):
			continue // accepted or not, nothing was written: said above
		case h.Applied:
			what = "applied"
		case out.Stale:
			what = "refused as stale"
		}
		c.note(fmt.Sprintf("%s hunk %d (lines %s): %s", sandbox.Visible(ch.Path), h.Index+1, h.Lines, what))
	}
	if out.Reason != "" {
		c.note(sandbox.Visible(out.Reason))
	}
	return out
}

// Flush implements agentrun.Proposer: the files written through the
// client that the disk does not hold yet (the client keeps them in a
// buffer); a command run now would not see them.
func (pr *proposer) Flush(context.Context) []string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	var left []string
	for rel, want := range pr.pending {
		if now, err := pr.ws.disk(rel); err == nil && string(now) == want {
			delete(pr.pending, rel)
			continue
		}
		left = append(left, rel)
	}
	return left
}

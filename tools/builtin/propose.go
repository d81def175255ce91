package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// propose sends change to the editor and turns the user's answer into the
// tool result (E6): applied hunks as JSON, a refusal as approval_denied.
// The change is preapproved when the policy allowed the call outright;
// otherwise the user confirms it, in the editor or, for a proposer that
// shows nothing, through the gateway's question first.
func propose(ctx context.Context, env *tools.Env, change *tools.FileChange) (tools.Result, error) {
	change.Preapproved = env.Call.Preapproved
	// E15: the path is checked again as resolved now, not only as the
	// verdict saw it (a symlink may have been swapped in between).
	if control, _ := sandbox.IsControlPath(change.Path); control || env.Call.Control {
		change.Control, change.Warning, change.Preapproved = true, tools.ControlWarning, false
	}
	proposed := tools.HashContent(change.New)
	if refusal := confirmChange(ctx, env, change); refusal != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		res := refusal.Result()
		res.ProposedSHA256 = proposed
		return res, nil
	}
	out, err := env.Edits.Propose(ctx, change)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("propose %s change: %w", change.Tool, err)
	}
	if out != nil && out.Stale {
		res := tools.Fail(tools.CodeStaleFile, "path", cut(out.Reason, 500), "read the file again and recompute the change")
		res.ProposedSHA256 = proposed
		return res, nil
	}
	if out == nil || !out.Applied {
		reason := "the user rejected the change"
		if out != nil && out.Reason != "" {
			reason = "the change was not applied: " + cut(out.Reason, 500)
		}
		e := &tools.ToolError{Code: tools.CodeApprovalDenied, Reason: reason,
			Recovery: "do not repeat the same change; adapt it to the reason or ask the user"}
		if out != nil && out.UserReason != "" {
			e.Reason += " (the user said why: user_reason)"
			e.UserReason = out.UserReason
		}
		res := e.Result()
		res.ProposedSHA256 = proposed
		return res, nil
	}
	if len(out.Hunks) == 0 || allApplied(out.Hunks) {
		env.Reads.Record(change.Path, change.New)
	}
	hunks := out.Hunks
	if hunks == nil {
		hunks = []tools.HunkOutcome{}
	}
	b, err := json.Marshal(struct {
		Path    string              `json:"path"`
		Applied bool                `json:"applied"`
		Hunks   []tools.HunkOutcome `json:"hunks"`
		Saved   bool                `json:"saved"`
		Reason  string              `json:"reason,omitempty"`
	}{change.Path, true, hunks, out.Saved, cut(out.Reason, 500)})
	if err != nil {
		return tools.Result{}, err
	}
	res := tools.Result{Content: string(b), ProposedSHA256: proposed, UserReason: hunkReasons(out.Hunks)}
	if allApplied(out.Hunks) {
		res.AppliedSHA256 = proposed // what landed is what was proposed, verified by the proposer
	}
	return res, nil
}

// allApplied says whether every hunk landed as proposed: applied, and
// not changed by the user first.
func allApplied(hs []tools.HunkOutcome) bool {
	for _, h := range hs {
		if !h.Applied || h.UserChange != "" {
			return false
		}
	}
	return true
}

// hunkReasons joins the reasons the user gave for rejecting hunks, for
// the audit log (issue 28).
func hunkReasons(hs []tools.HunkOutcome) string {
	var parts []string
	for _, h := range hs {
		if h.UserReason != "" {
			parts = append(parts, fmt.Sprintf("hunk %d (lines %s): %s", h.Index+1, h.Lines, h.UserReason))
		}
	}
	return strings.Join(parts, "; ")
}

// confirmChange asks the user about a change that is not preapproved when
// env's proposer cannot show it ([BlindProposer]: E6 without an editor): the unified diff
// is the preview. On approval the change is marked preapproved.
func confirmChange(ctx context.Context, env *tools.Env, ch *tools.FileChange) *tools.ToolError {
	if _, blind := env.Edits.(tools.BlindProposer); !blind || ch.Preapproved {
		return nil
	}
	diff := tools.UnifiedDiff(ch.Path, string(ch.Old), string(ch.New))
	ans, ok := env.Call.Ask(ctx, &tools.ApprovalRequest{Tool: ch.Tool, Risk: tools.RiskWrite, Subject: ch.Path, Preview: diff,
		Control: ch.Control, Warning: ch.Warning})
	switch {
	case !ok:
		return failure(tools.CodeApprovalRequired, "", "nobody can approve the change here",
			"do without this change, or ask the user to allow it in the policy")
	case ans.Answer == tools.AnswerApprove, ans.Answer == tools.AnswerAlways:
		ch.Preapproved = true
		return nil
	}
	return failure(tools.CodeApprovalDenied, "", "the change was not applied: the user rejected the change",
		"do not repeat the same change; adapt it to the reason or ask the user")
}

// staleNoter is a proposer that counts the changes a tool refuses as
// stale before proposing them (E18: every stale refusal is counted).
type staleNoter interface{ NoteStale(rel string) }

// staleResult refuses a change computed from an older view of rel (T17),
// and tells env's proposer, which never saw the change.
func staleResult(env *tools.Env, rel string) tools.Result {
	if n, ok := env.Edits.(staleNoter); ok {
		n.NoteStale(rel)
	}
	return tools.Fail(tools.CodeStaleFile, "path", rel+" changed since you read it", "read the file again and recompute the change")
}

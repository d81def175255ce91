package tools

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// The approval step of the gateway (T7, T15, T16) lives in this file: the
// user's answers, the [Approver] the editor side implements, the use of
// the scoped "always" answers ([Allowances], allow.go), and the one function every question of the gateway
// goes through ([approvals.Ask], a call's [Asker]).

// Answer is the user's answer to an approval request.
type Answer string

// The answers. Anything else, an error, or no answer in time is a deny.
const (
	AnswerApprove Answer = "approve"
	AnswerDeny    Answer = "deny"
	AnswerAlways  Answer = "always" // approve, and the same normalized call at the answer's Scope
	AnswerModify  Answer = "modify" // approve an edited text (human_confirm)
)

// ApprovalRequest is one question to the user (T7).
type ApprovalRequest struct {
	Tool    string
	Risk    Risk
	Subject string // the normalized call
	Preview string // what will happen
	Reason  string // why it needs approval (the rule)
	// Why is the check's own words for what the call does that made the
	// rule ask ("deletes inside the workspace"), for "asked because"
	// (issue 28); "" when the check said nothing.
	Why string
	// Question and Text are set by human_confirm: the model's own question
	// and a text the user may edit before approving.
	Question string
	Text     string
	// Control marks a change to a control file (E15): the approver shows
	// Warning prominently and offers approve and deny only, never
	// "always"; the gateway takes an "always" answer as approve-once and
	// never remembers it.
	Control bool
	Warning string
	// Scopes are the "always" answers the approver may offer, narrowest
	// first (E21): none for a control file, a command part no rule can
	// lift, a project-trust question or any question but the gateway's
	// own; the gateway keeps no other.
	Scopes []Scope
}

// ControlWarning is the warning of every question about a control file
// (E15, [Verdict.Control]).
const ControlWarning = "WARNING: this changes a file that an editor, a shell or git runs outside the sandbox " +
	"(editor settings and tasks, .envrc, git hooks and attributes). Read the change before approving; " +
	"it is asked every time and cannot be allowed always."

// ApprovalResponse is the user's answer.
type ApprovalResponse struct {
	Answer Answer
	Text   string // the edited text of AnswerModify
	// Scope is how far AnswerAlways reaches; "" is the session.
	Scope Scope
	// Reason is why the user declined (AnswerDeny), in their words; ""
	// when they gave none (issue 28).
	Reason string
	// Unanswered: nobody answered within the approval timeout (or the
	// question failed); the answer is AnswerDeny, and the model is told
	// so rather than that the user declined.
	Unanswered bool
	// Auto: a flag answered, not a person (headless --approve=all or
	// never): an approval counts as the user's, and its explanation and
	// audit record say [ByFlag]; a deny's explanation says the flag
	// declined (E21).
	Auto bool
}

// Approver asks the user. Approve blocks until an answer or until ctx is
// done; the gateway bounds ctx with the policy's approval timeout and
// treats an error, a timeout and an unknown answer as deny (T15). It must
// be safe for concurrent use.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (ApprovalResponse, error)
}

// DefaultApprovalTimeout bounds each question to the user when the policy
// sets no approval_timeout_seconds.
const DefaultApprovalTimeout = 5 * time.Minute

// approvals is the gateway's side of asking the user, for one [Gateway]:
// the run's one Approver, one timeout for every question (commands, file
// changes the proposer cannot show, human_confirm), and one meaning of no
// answer. A nil *approvals has nobody to ask.
type approvals struct {
	approver Approver
	timeout  time.Duration
	session  *Allowances
	root     string // the workspace root's real path ("" unknown)
	id       string // the agentls session
	log      *slog.Logger
}

// Ask puts req to the user within the approval timeout. An error, a
// timeout, a cancelled context and an answer outside the list all come
// back as AnswerDeny. ok is false when nobody can be asked in this run.
func (a *approvals) Ask(ctx context.Context, req *ApprovalRequest) (ans ApprovalResponse, ok bool) {
	if a == nil || a.approver == nil {
		return ApprovalResponse{Answer: AnswerDeny}, false
	}
	defer AwaitUser(ctx)()
	actx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	ans, err := a.approver.Approve(actx, req)
	switch {
	case err != nil:
		a.log.Warn("Question unanswered; denying", slog.String("tool", req.Tool), slog.String("err", err.Error()))
		return ApprovalResponse{Answer: AnswerDeny, Unanswered: ctx.Err() == nil}, true
	case ans.Answer == AnswerApprove, ans.Answer == AnswerAlways, ans.Answer == AnswerModify:
		return ans, true
	}
	return ApprovalResponse{Answer: AnswerDeny, Reason: ans.Reason, Auto: ans.Auto}, true
}

// call approves a call the policy asks about (T7): an earlier "always"
// that covers the same normalized call here, or the user's answer now
// ("always" is kept at the scope the user chose, E21). It returns who
// approved ("user", "user(always:SCOPE)" for the user's "always" now, or
// "always:SCOPE" for an earlier answer at the session, workspace or
// everywhere scope, with the ID of its grant: "" when kept in memory),
// or the refusal (with by "flag" when a flag declined, not a person).
func (a *approvals) call(ctx context.Context, t *Tool, v *Verdict) (by, grant string, refusal *ToolError) {
	never := neverAlways(v)
	var k allowKey
	if a != nil {
		k = allowKey{tool: t.Name, subject: v.Subject, workspace: a.root, session: a.id}
		if scope, id, ok := a.session.allowed(k); ok && !never {
			return byAlways(scope), id, nil
		}
	}
	req := &ApprovalRequest{Tool: t.Name, Risk: t.Risk, Subject: v.Subject, Preview: v.Preview, Reason: v.Rule, Why: v.Reason}
	if v.Control {
		req.Control, req.Warning = true, ControlWarning
	}
	if !never && a != nil {
		req.Scopes = a.session.scopes(k)
	}
	ans, ok := a.Ask(ctx, req)
	switch {
	case !ok:
		return "", "", failure(CodeApprovalRequired, "", t.Name+" needs the user's approval and nobody can approve here",
			"do without this call, or ask the user to allow it in the policy")
	case ans.Answer == AnswerApprove && ans.Auto:
		return ByFlag, "", nil
	case ans.Answer == AnswerApprove:
		return ByUser, "", nil
	case ans.Answer == AnswerAlways && never: // E15, E21: once, never kept
		return ByUser, "", nil
	case ans.Answer == AnswerAlways:
		scope := keptScope(ans.Scope, req.Scopes)
		a.session.remember(k, scope)
		return byUserAlways(scope), "", nil
	case ans.Unanswered:
		return "", "", failure(CodeApprovalDenied, "", fmt.Sprintf("nobody answered the question about %s within the approval timeout (%s), so it did not run", t.Name, a.timeout),
			"do not assume the user declined; go on without this call or ask the user later")
	}
	if ans.Auto {
		by = ByFlag // the flag declined, not a person (the explanation says so)
	}
	return by, "", declined(t.Name, ans.Reason)
}

// keptScope is the scope an "always" answer is kept at: the one the user
// picked if it was offered, else the session (never wider).
func keptScope(picked Scope, offered []Scope) Scope {
	if slices.Contains(offered, picked) {
		return picked
	}
	return ScopeSession
}

// ApprovedAlways reports whether by (an audit record's approved_by) is an
// earlier "always" answer of the user's ("always:SCOPE").
func ApprovedAlways(by string) bool {
	scope, ok := strings.CutPrefix(by, "always:")
	return ok && slices.Contains(AllScopes, Scope(scope))
}

// declined is the refusal of a call the user said no to; with their
// reason, the model is told to follow it (issue 28).
func declined(tool, reason string) *ToolError {
	if reason == "" {
		return failure(CodeApprovalDenied, "", "the user did not approve "+tool, "do not repeat the call; ask the user what to do instead")
	}
	e := failure(CodeApprovalDenied, "", "the user did not approve "+tool+" and said why (user_reason)",
		"do not repeat the call; do what the user's reason asks")
	e.UserReason = reason
	return e
}

// BlindProposer is an [EditProposer] that shows the user nothing
// ([DiskProposer]): a tool asks the user about a change that is not
// preapproved through [Call.Ask] before proposing it.
type BlindProposer interface {
	EditProposer
	// ShowsNothing marks the proposer; it does nothing.
	ShowsNothing()
}

package tools

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// The approval step of the gateway (T7, T15, T16) lives in this file: the
// user's answers, the [Approver] the editor side implements, the session's
// "always" answers, and the one function every question of the gateway
// goes through ([approvals.Ask], a call's [Asker]).

// Answer is the user's answer to an approval request.
type Answer string

// The answers. Anything else, an error, or no answer in time is a deny.
const (
	AnswerApprove Answer = "approve"
	AnswerDeny    Answer = "deny"
	AnswerAlways  Answer = "always" // approve, and the same normalized call for the rest of the session
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
}

// ControlWarning is the warning of every question about a control file
// (E15, [Verdict.Control]).
const ControlWarning = "WARNING: this changes a file that an editor, a shell or git runs outside the sandbox " +
	"(editor settings and tasks, .envrc, git hooks and attributes). Read the change before approving; " +
	"it is asked every time and cannot be allowed for the session."

// ApprovalResponse is the user's answer.
type ApprovalResponse struct {
	Answer Answer
	Text   string // the edited text of AnswerModify
	// Reason is why the user declined (AnswerDeny), in their words; ""
	// when they gave none (issue 28).
	Reason string
	// Unanswered: nobody answered within the approval timeout (or the
	// question failed); the answer is AnswerDeny, and the model is told
	// so rather than that the user declined.
	Unanswered bool
}

// Approver asks the user. Approve blocks until an answer or until ctx is
// done; the gateway bounds ctx with the policy's approval timeout and
// treats an error, a timeout and an unknown answer as deny (T15). It must
// be safe for concurrent use.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (ApprovalResponse, error)
}

// Allowances holds what the user allowed "always" while one editor stays
// connected (not a conversation: that is agent/session).
// Keys are normalized calls (tool and subject), never raw argument text, so
// a differently spelled call is asked again. It is safe for concurrent use.
type Allowances struct {
	mu     sync.Mutex // guards always
	always map[string]bool
}

// NewAllowances returns an empty set of allowances.
func NewAllowances() *Allowances { return &Allowances{always: make(map[string]bool)} }

func allowanceKey(tool, subject string) string { return tool + "\x00" + subject }

func (s *Allowances) allowed(tool, subject string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[allowanceKey(tool, subject)]
}

func (s *Allowances) remember(tool, subject string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always[allowanceKey(tool, subject)] = true
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
	return ApprovalResponse{Answer: AnswerDeny, Reason: ans.Reason}, true
}

// call approves a call the policy asks about (T7): an earlier "always" of
// the session for the same normalized call, or the user's answer now
// ("always" is remembered). It returns who approved, or the refusal.
func (a *approvals) call(ctx context.Context, t *Tool, v *Verdict) (string, *ToolError) {
	if a != nil && !v.Control && a.session.allowed(t.Name, v.Subject) {
		return "session", nil
	}
	req := &ApprovalRequest{Tool: t.Name, Risk: t.Risk, Subject: v.Subject, Preview: v.Preview, Reason: v.Rule, Why: v.Reason}
	if v.Control {
		req.Control, req.Warning = true, ControlWarning
	}
	ans, ok := a.Ask(ctx, req)
	switch {
	case !ok:
		return "", failure(CodeApprovalRequired, "", t.Name+" needs the user's approval and nobody can approve here",
			"do without this call, or ask the user to allow it in the policy")
	case ans.Answer == AnswerApprove:
		return "user", nil
	case ans.Answer == AnswerAlways && v.Control: // E15: once, never for the session
		return "user", nil
	case ans.Answer == AnswerAlways:
		a.session.remember(t.Name, v.Subject)
		return "user(always)", nil
	case ans.Unanswered:
		return "", failure(CodeApprovalDenied, "", fmt.Sprintf("nobody answered the question about %s within the approval timeout (%s), so it did not run", t.Name, a.timeout),
			"do not assume the user declined; go on without this call or ask the user later")
	}
	return "", declined(t.Name, ans.Reason)
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

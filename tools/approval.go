package tools

import (
	"context"
	"sync"
)

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
	// Question and Text are set by human_confirm: the model's own question
	// and a text the user may edit before approving.
	Question string
	Text     string
}

// ApprovalResponse is the user's answer.
type ApprovalResponse struct {
	Answer Answer
	Text   string // the edited text of AnswerModify
}

// Approver asks the user. Approve blocks until an answer, ctx is done, or
// the approver gives up; callers bound it with the policy's approval
// timeout and treat any error as deny (T15). It must be safe for
// concurrent use.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (ApprovalResponse, error)
}

// Session holds what the user allowed "always" during one editor session.
// Keys are normalized calls (tool and subject), never raw argument text, so
// a differently spelled call is asked again. It is safe for concurrent use.
type Session struct {
	mu     sync.Mutex // guards always
	always map[string]bool
}

// NewSession returns an empty session.
func NewSession() *Session { return &Session{always: make(map[string]bool)} }

func sessionKey(tool, subject string) string { return tool + "\x00" + subject }

func (s *Session) allowed(tool, subject string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[sessionKey(tool, subject)]
}

func (s *Session) remember(tool, subject string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always[sessionKey(tool, subject)] = true
}

type preapprovedKey struct{}

// withPreapproved marks ctx: the policy allowed this write outright, so the
// edit proposal needs no confirmation.
func withPreapproved(ctx context.Context) context.Context {
	return context.WithValue(ctx, preapprovedKey{}, true)
}

// Preapproved reports whether the policy allowed the current call without
// asking; edit proposers use it to skip the confirmation.
func Preapproved(ctx context.Context) bool {
	v, _ := ctx.Value(preapprovedKey{}).(bool)
	return v
}

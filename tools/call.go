package tools

import "context"

// Call is what the [Gateway] decided about one call, handed to the tool
// that runs it in [Env.Call]. Built-in and third-party tools read the same
// fields; nothing about a call reaches a tool another way.
type Call struct {
	// Preapproved: the policy allowed this call outright, so a change it
	// proposes needs no confirmation ([FileChange.Preapproved]). Never set
	// for a control file.
	Preapproved bool
	// Control: the verdict marked a control file (E15, [Verdict.Control]);
	// a change the call proposes is asked about on its own.
	Control bool
	// UserApproved: the user answered yes to this very call (not a policy
	// allow, not an earlier "always"); run_command may then write the
	// control files (exec.Spec.UserApproved).
	UserApproved bool
	// SessionApproved: an earlier "always" of the user's covers this
	// call; a staged command's git data lands as after an approval.
	SessionApproved bool
	// Asker puts the call's own questions to the user (human_confirm, a
	// change a proposer cannot show, a command's held files) under the
	// run's one approval timeout; nil means nobody can be asked.
	Asker Asker
}

// Approved reports whether the user approved the call: now, or by an
// earlier "always" that covers it. An "always" answer and an Approve run
// a call alike (issue 24 item 7): the same sandbox, the same landing.
func (c *Call) Approved() bool { return c.UserApproved || c.SessionApproved }

// Asker puts one question to the user for a call. Ask blocks until an
// answer, the approval timeout or the end of ctx, and stops the call's
// time limit meanwhile ([AwaitUser]). An error, a timeout and an answer
// outside the list come back as [AnswerDeny]; ok is false when nobody can
// be asked in this run. It must be safe for concurrent use.
type Asker interface {
	Ask(ctx context.Context, req *ApprovalRequest) (ans ApprovalResponse, ok bool)
}

// Ask puts req to the user through c.Asker; with no Asker nobody can be
// asked (ok false, [AnswerDeny]).
func (c *Call) Ask(ctx context.Context, req *ApprovalRequest) (ApprovalResponse, bool) {
	if c.Asker == nil {
		return ApprovalResponse{Answer: AnswerDeny}, false
	}
	return c.Asker.Ask(ctx, req)
}

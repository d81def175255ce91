package command

import "go.lsp.dev/protocol"

// Target is what a command is about: a file or folder of the workspace,
// and optionally a range in it. A code action of kind [CodeActionKind]
// carries just a Target; the editor asks for the instruction.
type Target struct {
	// URI is a file URI inside the workspace.
	URI string `json:"uri"`
	// Range is the selection; none means the whole file or folder.
	Range *protocol.Range `json:"range,omitempty"`
}

// Args is the one argument of [Plan], [Review] and [Execute] (E3).
// Unknown fields are an error.
type Args struct {
	Target
	// Instruction says what to do. Plan needs one; a review without one
	// gets a default, and so does an execute that continues a session
	// ([ExecutePlanInstruction]: carry out the plan above).
	Instruction string `json:"instruction" ts:"optional"`
	// SessionID continues that session (A16): the run sees its whole
	// conversation. Empty starts a new session. Runs of one session take
	// turns; runs of different sessions run side by side.
	SessionID string `json:"sessionId,omitempty" ts:"optional"`
	// Images are pictures for the model, a screenshot of a UI bug say:
	// file URIs of PNG, JPEG, GIF or WebP files in the workspace, at most
	// four (A12, issue 25). Each goes to the model as an image part of
	// the task message, as an @path reference in the instruction does;
	// one that cannot be read is "Unable to read image: …" in the
	// message, which goes on without it.
	Images []string `json:"images,omitempty" ts:"optional"`
	// Detach asks for the reply as soon as the run has started, a
	// [Started], instead of the [Result] at its end; the run then reports
	// as it goes ($/progress where the client offers it, else
	// window/showMessage) and its result in a window/showMessage (E19).
	// The server sets it in the code actions it offers clients that are
	// not agentls plugins (eglot, Kate, Helix), which time out a request
	// that waits for a whole run; absent, the reply waits, as before.
	Detach bool `json:"detach,omitempty" ts:"optional"`
}

// CancelArgs is the optional argument of [Cancel]; without it every run
// is cancelled.
type CancelArgs struct {
	// SessionID is the session whose running run is cancelled.
	SessionID string `json:"sessionId"`
}

// RevertArgs is the optional argument of [Revert]. With RunID that run is
// reverted; with only SessionID the last run of that session that changed
// files; with neither, the last such run of the workspace's most recent
// session.
type RevertArgs struct {
	SessionID string `json:"sessionId,omitempty" ts:"optional"`
	RunID     string `json:"runId,omitempty" ts:"optional"`
}

// CancelResult is the result of [Cancel]: the session IDs of the runs it
// cancelled.
type CancelResult struct {
	Cancelled []string `json:"cancelled"`
}

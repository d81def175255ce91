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
	// Instruction says what to do. Plan and execute need one; a review
	// without one gets a default.
	Instruction string `json:"instruction" ts:"optional"`
}

// CancelArgs is the optional argument of [Cancel]; without it every run
// is cancelled.
type CancelArgs struct {
	SessionID string `json:"sessionId"`
}

// CancelResult is the result of [Cancel]: the session IDs of the runs it
// cancelled.
type CancelResult struct {
	Cancelled []string `json:"cancelled"`
}

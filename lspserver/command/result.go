package command

// Result is the result of [Plan], [Review] and [Execute] (E3).
type Result struct {
	// SessionID names the session the run belongs to: pass it back in
	// [Args.SessionID] to continue it, or to [Cancel].
	SessionID string `json:"sessionId"`
	// RunID names this run in its session ("<sessionId>-<n>"), for
	// [Revert].
	RunID  string `json:"runId"`
	Status Status `json:"status"`
	// Summary is the model's final answer.
	Summary string `json:"summary"`
	// Steps are the run's tool calls, in order.
	Steps []Step `json:"steps,omitempty"`
	// Findings are a review's findings, also published as diagnostics.
	Findings []Finding `json:"findings,omitempty"`
	// Edits counts the run's edit proposals; always present.
	Edits EditCounts `json:"edits"`
	// Incomplete: the model's final answer was cut off (A4).
	Incomplete bool `json:"incomplete,omitempty"`
}

// Started is the result of [Plan], [Review] and [Execute] with
// [Args.Detach]: the run has started and goes on after the reply (E19).
type Started struct {
	// SessionID names the run's session, for [Cancel] and to continue it.
	SessionID string `json:"sessionId"`
	// RunID names the run in its session, for [Revert].
	RunID string `json:"runId"`
	// Started is always true: it tells this reply from a [Result].
	Started bool `json:"started"`
}

// Status is how a run ended.
type Status string

// The statuses of a run.
const (
	StatusDone      Status = "done"
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// Step is one tool call of a run.
type Step struct {
	// Turn is the model turn that made the call, from 1.
	Turn int `json:"turn"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// OK is false when the call failed or was refused.
	OK bool `json:"ok"`
	// Code is the tool error's code when OK is false (unknown_tool,
	// approval_denied, …).
	Code string `json:"code,omitempty"`
	// ExitCode is a command's exit status (run_command): a command that
	// ran and exited 126 is OK (the model got its output) with exit code
	// 126. Absent for other tools.
	ExitCode *int `json:"exitCode,omitempty"`
}

// Finding is one problem a review found, in workspace-relative terms.
type Finding struct {
	// Path is workspace-relative, with slashes.
	Path string `json:"path"`
	// Line is 1-based; EndLine, when set, ends a range of lines.
	Line    int `json:"line"`
	EndLine int `json:"endLine,omitempty"`
	// Severity is error, warning, info or hint.
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// EditCounts counts a run's edits hunk by hunk (E16, E18), and names the
// files the run created and deleted. Proposed counts the hunks put to the
// user; each of them is then applied, rejected (by the user or the editor)
// or stale. Stale counts every hunk refused because its file changed under
// it: while it was proposed, applied by the editor to changed content
// (T17, E14), or before it was proposed at all (a change the tool refused
// before computing its hunks counts as one).
type EditCounts struct {
	Proposed int `json:"proposed"`
	Applied  int `json:"applied"`
	Rejected int `json:"rejected"`
	Stale    int `json:"stale,omitempty"`
	// Created and Deleted name the files the run created and deleted that
	// landed (by an edit, or by a command, S9): workspace-relative, with
	// slashes, in the order they landed. A new file counts as created only
	// when it landed with exactly its proposed content (E18).
	Created []string `json:"created,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
}

// RevertResult is the result of [Revert].
type RevertResult struct {
	// SessionID and RunID name the revert run, itself recorded in the
	// session and revertable.
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	// Reverted is the run whose changes were restored.
	Reverted string `json:"reverted"`
	// Restored lists the files put back as they were before that run.
	Restored []string `json:"restored"`
	// Stale lists the files refused because they changed since that run
	// (by the user, or a later run); they are left as they are.
	Stale []RevertedFile `json:"stale"`
	// Failed lists the files that could not be restored: not kept (over a
	// checkpoint limit, expired), or the editor refused the change.
	Failed []RevertedFile `json:"failed"`
}

// RevertedFile is a file a revert refused or could not restore, and why.
type RevertedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

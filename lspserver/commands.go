package lspserver

import "github.com/agentls/agentls/agent"

// The workspace/executeCommand commands agentls provides.
const (
	// CommandPlan: Plan the selected change (read-only).
	CommandPlan = "agentls.plan"
	// CommandReview: Review the selection and publish findings as diagnostics.
	CommandReview = "agentls.review"
	// CommandExecute: Make the change, proposing every edit for approval.
	CommandExecute = "agentls.execute"
	// CommandCancel: Cancel one run ({"sessionId"}) or all runs (no argument).
	CommandCancel = "agentls.cancel"
)

// Commands lists the commands advertised in initialize.
var Commands = []string{CommandPlan, CommandReview, CommandExecute, CommandCancel}

// commandModes maps the commands that start a run to its mode.
var commandModes = map[string]agent.Mode{
	CommandPlan:    agent.ModePlan,
	CommandReview:  agent.ModeReview,
	CommandExecute: agent.ModeExecute,
}

// CommandFor returns the command that starts a run in mode m.
func CommandFor(m agent.Mode) string {
	for cmd, mode := range commandModes {
		if mode == m {
			return cmd
		}
	}
	return ""
}

// Custom requests between agentls and its editor plugins.
const (
	// MethodSaveDocuments asks the client to save buffers:
	// params {"uris": [...]}, result {"saved": [...]}. Sent only to clients
	// that set capabilities.experimental.agentls.saveDocuments.
	MethodSaveDocuments = "agentls/saveDocuments"
	// MethodEditText asks the user to edit a text (human_confirm "modify"):
	// params {"prompt", "text"}, result {"text": string|null}. Sent only to
	// clients that set capabilities.experimental.agentls.editText.
	MethodEditText = "agentls/editText"
)

// Approval actions offered with window/showMessageRequest.
const (
	ActionApprove     = "Approve"
	ActionDeny        = "Deny"
	ActionAlwaysAllow = "Always allow in this session"
	ActionModify      = "Edit…"
)

// Package command holds the wire shapes of agentls's custom
// workspace/executeCommand commands: their names, the argument and result
// types, and the agentls-specific requests and capabilities a client and
// the server exchange around them (agentls/saveDocuments, agentls/editText,
// capabilities.experimental.agentls).
//
// It is the one definition of these shapes. The server (lspserver), the
// headless client (lspserver/headless), the test client (lspserver/lsptest)
// and the tests use it; editors/vscode/src/protocol.ts is generated from it
// (go generate, checked by TestTypeScript); the Neovim plugin and the Node
// e2e client follow the same JSON by hand.
//
// The types are plain structs for encoding/json: encode them with it, as
// the server does, because their omitempty tags follow its rules. A field
// tagged ts:"optional" is one the server accepts absent although Go always
// sends it; the TypeScript mirror marks it optional.
//
// The package knows nothing of the agent, the tools or the server, and
// imports no package of ours.
package command

//go:generate go test -run ^TestTypeScript$ -update .

// The workspace/executeCommand commands agentls provides.
const (
	// Plan: Plan the selected change (read-only).
	Plan = "agentls.plan"
	// Review: Review the selection and publish findings as diagnostics.
	Review = "agentls.review"
	// Execute: Make the change, proposing every edit for approval.
	Execute = "agentls.execute"
	// Cancel: Cancel one run ({"sessionId"}) or all runs (no argument).
	Cancel = "agentls.cancel"
	// Revert: Restore the files a run changed ({"runId"} or
	// {"sessionId"}, or the last run), refusing those changed since.
	Revert = "agentls.revert"
)

// All lists the commands, in the order initialize advertises them.
var All = []string{Plan, Review, Execute, Cancel, Revert}

// ExecutePlanInstruction is the instruction of an [Execute] that continues
// a session without one of its own: "execute this plan".
const ExecutePlanInstruction = "Carry out the plan above: make the changes it describes, then summarize what you changed."

// CodeActionKind is the kind of the code actions that offer [Plan],
// [Review] and [Execute] for a selection, with a [Target] as their one
// argument.
const CodeActionKind = "refactor.agentls"

// ProgressTokenPrefix starts the work-done progress token of a run; the
// session ID follows it. window/workDoneProgress/cancel on that token
// cancels the run.
const ProgressTokenPrefix = "agentls-"

// Action titles of agentls's window/showMessageRequest questions. Clients
// answer with one of the offered titles; anything else, or null, is a deny.
const (
	// ActionApprove approves a tool call or an edit.
	ActionApprove = "Approve"
	// ActionApproveControl approves a change to a control file (E15):
	// a file that an editor, a shell or git runs outside the sandbox. It
	// replaces ActionApprove in those questions, so a client can tell
	// them apart by the action, never by the wording; a client that
	// answers questions for the user (a blanket yes) must not pick it.
	ActionApproveControl = "Approve control-file change"
	// ActionDeny declines it.
	ActionDeny = "Deny"
	// ActionAlwaysSession approves it and every call like it (the same
	// tool and normalized subject) in this agentls session, also after a
	// restart that continues the session; not the editor's connection
	// (E18, E21). Offered only where the server can keep the answer.
	ActionAlwaysSession = "Always in this session"
	// ActionAlwaysWorkspace approves it and every call like it in this
	// workspace, kept in the user's state, never in the project (E21).
	ActionAlwaysWorkspace = "Always in this workspace"
	// ActionAlwaysEverywhere approves it and every call like it in every
	// workspace, kept in the user's state (E21). `agentls policy list`
	// shows what is kept, `agentls policy --revoke` forgets it.
	ActionAlwaysEverywhere = "Always everywhere"
	// ActionModify asks to edit the proposed text first (human_confirm);
	// offered only to clients with [ClientCapabilities.EditText].
	ActionModify = "Edit…"
	// ActionDenyWithReason declines and then asks the user why, with
	// agentls/editText; the model is told their words (issue 28).
	// Offered only to clients with [ClientCapabilities.EditText].
	ActionDenyWithReason = "Deny with a reason…"
	// ActionSaved answers the question to save the buffers a run changed:
	// the user saved them.
	ActionSaved = "I saved them"
	// ActionNotNow answers the same question: the buffers stay unsaved.
	ActionNotNow = "Not now"
)

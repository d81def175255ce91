package command

// Requests agentls sends to clients of its own, and the capabilities that
// announce them (capabilities.experimental.agentls).
const (
	// MethodSaveDocuments asks the client to save buffers the run changed
	// ([SaveDocumentsParams] → [SaveDocumentsResult]). Sent only to clients
	// with [ClientCapabilities.SaveDocuments].
	MethodSaveDocuments = "agentls/saveDocuments"
	// MethodEditText asks the user to edit a text, human_confirm's
	// "modify" ([EditTextParams] → [EditTextResult]). Sent only to clients
	// with [ClientCapabilities.EditText].
	MethodEditText = "agentls/editText"
)

// SaveDocumentsParams are the params of [MethodSaveDocuments].
type SaveDocumentsParams struct {
	// URIs are the documents to save.
	URIs []string `json:"uris"`
}

// SaveDocumentsResult is the result of [MethodSaveDocuments].
type SaveDocumentsResult struct {
	// Saved are the URIs now saved; the server checks the disk.
	Saved []string `json:"saved"`
}

// EditTextParams are the params of [MethodEditText].
type EditTextParams struct {
	// Prompt is the model's question.
	Prompt string `json:"prompt"`
	// Text is the text to edit, prefilled.
	Text string `json:"text"`
}

// EditTextResult is the result of [MethodEditText].
type EditTextResult struct {
	// Text is the edited text; null means the user cancelled (a deny).
	Text *string `json:"text"`
}

// ClientCapabilities are the agentls extensions a client supports, sent as
// capabilities.experimental.agentls in initialize.
type ClientCapabilities struct {
	// SaveDocuments: the client answers [MethodSaveDocuments].
	SaveDocuments bool `json:"saveDocuments" ts:"optional"`
	// EditText: the client answers [MethodEditText].
	EditText bool `json:"editText" ts:"optional"`
	// RunEvents: the client wants [MethodRunEvent] notifications (E16).
	RunEvents bool `json:"runEvents,omitempty"`
	// Unattended: nobody answers this client's questions; it declines
	// every window/showMessageRequest without asking a person (headless
	// --approve=never). Runs then offer no tool that only asks the user
	// (human_confirm; issue 16).
	Unattended bool `json:"unattended,omitempty"`
	// AutoApprove: a flag answers this client's questions with yes, not a
	// person (headless --approve=all); the run's steps and the audit log
	// name the flag as who approved (E21).
	AutoApprove bool `json:"autoApprove,omitempty"`
}

// Experimental is the capabilities.experimental member of initialize as
// agentls reads it; other members are ignored.
type Experimental struct {
	Agentls ClientCapabilities `json:"agentls"`
}

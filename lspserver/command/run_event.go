package command

// MethodRunEvent is the notification that tells a client what a run does
// while it runs (E16): the model's text as it streams, each tool call and
// its outcome, the end. Params: [RunEvent]. Sent only to clients with
// [ClientCapabilities.RunEvents]; others get $/progress and
// window/logMessage only.
const MethodRunEvent = "agentls/runEvent"

// RunEventKind says what a [RunEvent] reports.
type RunEventKind string

// The kinds of run events, in the order a run sends them.
const (
	// RunStarted: a run began; Mode and Title are set. It comes before
	// any other event of the run.
	RunStarted RunEventKind = "started"
	// RunText: Text is the next piece of the model's answer.
	RunText RunEventKind = "text"
	// RunToolCall: the model called Tool; it is about to be checked and
	// run.
	RunToolCall RunEventKind = "toolCall"
	// RunToolResult: the call of Tool finished: OK, and Code when it failed
	// or was refused; Subject, ExitCode and Output when known.
	RunToolResult RunEventKind = "toolResult"
	// RunLog: a retry, repair or fallback the user should know about;
	// Level and Message are set.
	RunLog RunEventKind = "log"
	// RunEnded: the run ended with Status. The command's result follows.
	RunEnded RunEventKind = "ended"
)

// RunEvent is the params of [MethodRunEvent]. Which members are set
// depends on Kind.
type RunEvent struct {
	// SessionID names the run, as in [Result] and for [Cancel].
	SessionID string       `json:"sessionId"`
	Kind      RunEventKind `json:"kind"`
	// Turn is the model turn, from 1.
	Turn int `json:"turn,omitempty"`
	// Depth is 1 for the events of a sub-agent, 0 for the run itself.
	Depth int `json:"depth,omitempty"`
	// Mode is plan, review or execute (RunStarted).
	Mode string `json:"mode,omitempty"`
	// Title is what the editor shows for the run (RunStarted).
	Title string `json:"title,omitempty"`
	// Text is a piece of the model's answer (RunText).
	Text string `json:"text,omitempty"`
	// Tool is the tool's name (RunToolCall, RunToolResult).
	Tool string `json:"tool,omitempty"`
	// OK is false when the call failed or was refused (RunToolResult;
	// absent in the other kinds).
	OK bool `json:"ok,omitempty"`
	// Code is the tool error's code when OK is false (RunToolResult).
	Code string `json:"code,omitempty"`
	// Subject is what the call acted on: the command line, the path, the
	// URL (RunToolResult).
	Subject string `json:"subject,omitempty"`
	// ExitCode is a command's exit status (RunToolResult of run_command).
	ExitCode *int `json:"exitCode,omitempty"`
	// Output is the head and the tail of the result the model got: a few
	// lines of each, with a line counting those left out (RunToolResult).
	Output string `json:"output,omitempty"`
	// Files are the files a command changed that landed in the workspace
	// (RunToolResult of run_command; S9): their previous contents are in
	// the session's checkpoint, so a revert undoes them.
	Files []CommandFile `json:"files,omitempty"`
	// Level is error, warning or info (RunLog).
	Level string `json:"level,omitempty"`
	// Message says what happened (RunLog, RunToolResult of a refused call).
	Message string `json:"message,omitempty"`
	// Status is how the run ended (RunEnded).
	Status Status `json:"status,omitempty"`
	// Explain says why the call was allowed, asked or denied and who let
	// it run (RunToolResult of a call the gateway decided; E21).
	Explain *StepExplanation `json:"explain,omitempty"`
}

// StepExplanation is why one step of a run (a tool call) was allowed,
// asked or denied (E21, issue 28), as the run's session records it and
// `agentls why` prints it.
type StepExplanation struct {
	// Step is the call's number in its run, from 1; Turn the model turn.
	Step int    `json:"step,omitempty"`
	Turn int    `json:"turn,omitempty"`
	Tool string `json:"tool"`
	// Subject is what the call touches: a path, a command line, a URL.
	Subject string `json:"subject,omitempty"`
	// Decision is the policy's: "allow", "ask" or "deny".
	Decision string `json:"decision"`
	// Rule is the rule that decided, as written, "risk KIND", or a
	// check's rule ID.
	Rule string `json:"rule,omitempty"`
	// Source is the kind of origin: policy, profile, default,
	// risk_default, tool, control_file, gateway or hook; Origin says
	// where, for a person ("FILE:LINE", "built-in risk default of profile
	// editor").
	Source  string `json:"source"`
	Origin  string `json:"origin"`
	Profile string `json:"profile,omitempty"`
	// ApprovedBy is who let the call run: policy, user, flag, diff,
	// user(always:SCOPE) or always:SCOPE; Grant the kept answer's ID.
	ApprovedBy string `json:"approved_by,omitempty"`
	Grant      string `json:"grant,omitempty"`
	Code       string `json:"code,omitempty"`
	// Because is the sentence: "asked because …", "allowed because …",
	// "denied because …"; Outcome what became of the call.
	Because string `json:"because"`
	Outcome string `json:"outcome,omitempty"`
}

// CommandFile is one file a command changed.
type CommandFile struct {
	Path string `json:"path"` // workspace-relative, slash
	// Change is "added", "changed" or "deleted".
	Change string `json:"change"`
}

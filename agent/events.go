package agent

import "github.com/agentls/agentls/tools"

// EventKind names what happened in a run.
type EventKind string

// The events a run reports (A14). Every retry, repair, fallback and denial
// is one of them, with a [Level], and is logged to RunOptions.Logger at the
// same level with the same facts as attributes.
const (
	EventTurn       EventKind = "turn"        // a model request starts (debug)
	EventText       EventKind = "text"        // a content delta streamed (debug; not logged)
	EventToolCall   EventKind = "tool_call"   // a tool call is about to run (debug)
	EventToolResult EventKind = "tool_result" // a tool call finished; Code set on failure (debug ok, info failed, warning denied)
	// EventRetry: a model request is retried: by the model client after
	// 429/5xx/connection errors (Code is the HTTP status or "connection"),
	// or by the loop after an empty answer ("empty"), an incomplete stream
	// ("incomplete") or a stall ("stalled"). Level warning.
	EventRetry EventKind = "retry"
	// EventWarning: a fallback happened that the user should know about:
	// a partial answer returned ("incomplete"), partial tool calls sent to
	// the gateway ("partial_tool_calls"), a compaction failure and what the
	// circuit breaker did ("compaction_retry", "micro_compaction",
	// "compaction_disabled"), input cut or @file references not inlined
	// ("input_cut", "ref_missing", "ref_refused", "ref_unreadable"), a
	// sub-agent failure ("subagent_failed"). Level warning.
	EventWarning EventKind = "warning"
	// EventRepair: the conversation was repaired before a request (A7):
	// Code is the normalizer ("tool_result_pairing",
	// "orphan_tool_result_remover", "normalizer_error"), or the loop fixed
	// tool-call IDs ("tool_call_ids"), or compaction turned an answer into
	// text ("compaction_tool_calls", "compaction_digest"). Repairs lists
	// what was done ("synthetic_tool_result:call_1", …) and Diagnostic the
	// conversation's shape before the repair: roles, block types and IDs,
	// never content. Level warning (info for tool_call_ids).
	EventRepair EventKind = "repair"
	// EventCompaction: the conversation was compacted (A9); Message says
	// how much. Level info.
	EventCompaction EventKind = "compaction"
	// EventStrictWouldFail: a repair happened whose strict-mode
	// dimension is off (A8, seed 002): Message says what a strict run
	// would have stopped at. Level info.
	EventStrictWouldFail EventKind = "strict_mode_would_fail"
	// EventInput: an @file reference was inlined (A12). Level info.
	EventInput EventKind = "input"
	// EventDone: the run ended; Message is the status. Level info, or
	// error when the run failed.
	EventDone EventKind = "done"
)

// Level says how loud an event is. The editor maps it to the
// window/logMessage type: error → Error, warning → Warning, info → Info,
// debug → Log (or nothing).
type Level string

// The levels of events, from quiet to loud.
const (
	LevelDebug   Level = "debug"
	LevelInfo    Level = "info"
	LevelWarning Level = "warning"
	LevelError   Level = "error"
)

// Event is one observable step of a run. It never carries tool arguments,
// file contents or secrets, only names, codes, IDs and short messages.
type Event struct {
	Kind    EventKind `json:"kind"`
	Level   Level     `json:"level,omitempty"`
	Turn    int       `json:"turn,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Code    string    `json:"code,omitempty"`
	Message string    `json:"message,omitempty"`
	// Repairs lists the repairs of an EventRepair, as "kind:id".
	Repairs []string `json:"repairs,omitempty"`
	// Diagnostic is the structural snapshot of an EventRepair.
	Diagnostic string `json:"diagnostic,omitempty"`
	// Depth is 0 for the run the user started, 1 for a sub-agent's events
	// forwarded to its parent's Reporter.
	Depth int `json:"depth,omitempty"`

	// For the editor's run view (E16), set on EventToolResult and never
	// logged: Subject is what the call acted on (the command line, the
	// path), ExitCode a command's exit status, Output the head and the
	// tail of the result the model got (outputEnds).
	Subject  string `json:"-"`
	ExitCode *int   `json:"-"`
	Output   string `json:"-"`
	// Files are the files a command changed that landed (S9).
	Files []tools.FileLanded `json:"-"`
	// Explain says why the call was allowed, asked or denied, and who
	// let it run (E21), numbered as the run's step; nil when the call
	// never reached the gateway.
	Explain *tools.Explanation `json:"-"`
}

// Reporter receives the events of a run, in order, on the run's goroutine.
// Report must not block for long.
type Reporter interface {
	Report(Event)
}

// ReporterFunc adapts a function to [Reporter].
type ReporterFunc func(Event)

// Report calls f(e).
func (f ReporterFunc) Report(e Event) { f(e) }

// defaultLevel is the level of an event that did not set one.
func defaultLevel(e *Event) Level {
	switch e.Kind {
	case EventRetry, EventWarning, EventRepair:
		return LevelWarning
	case EventCompaction, EventInput, EventDone, EventStrictWouldFail:
		return LevelInfo
	case EventToolResult:
		switch {
		case e.Code == "":
			return LevelDebug
		case deniedCodes[e.Code]:
			return LevelWarning
		}
		return LevelInfo
	}
	return LevelDebug
}

// deniedCodes are the tool-result codes that mean "refused" rather than
// "failed" (A14: every denial is visible).
var deniedCodes = map[string]bool{
	"approval_denied": true, "approval_required": true, "policy_denied": true,
	"command_denied": true, "host_not_allowed": true, "path_outside_root": true,
	"read_only_run": true, "sql_not_read_only": true, "protected_path": true,
}

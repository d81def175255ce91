package agent

// EventKind names what happened in a run.
type EventKind string

// The events a run reports.
const (
	EventTurn       EventKind = "turn"        // a model request starts
	EventText       EventKind = "text"        // a content delta streamed
	EventToolCall   EventKind = "tool_call"   // a tool call is about to run
	EventToolResult EventKind = "tool_result" // a tool call finished (Code set on failure)
	EventRetry      EventKind = "retry"       // something was retried
	EventWarning    EventKind = "warning"     // a fallback or repair happened
	EventDone       EventKind = "done"        // the run ended (Message is the status)
)

// Event is one observable step of a run. It never carries tool arguments or
// file contents, only names, codes and short messages.
type Event struct {
	Kind    EventKind `json:"kind"`
	Turn    int       `json:"turn,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Code    string    `json:"code,omitempty"`
	Message string    `json:"message,omitempty"`
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

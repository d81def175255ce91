package agent

import (
	"context"
	"log/slog"
	"strings"
)

// emit reports e to the run's Reporter and logs it at the same level with
// the same facts as attributes (A14): production logs stay quiet at info,
// and nothing is invisible at debug. Text deltas are reported only.
func (r *run) emit(e Event, attrs ...slog.Attr) {
	if e.Level == "" {
		e.Level = defaultLevel(&e)
	}
	e.Depth = r.depth
	r.rep.Report(e)
	if e.Kind == EventText {
		return
	}
	attrs = append(attrs, slog.String("kind", string(e.Kind)))
	if e.Turn != 0 {
		attrs = append(attrs, slog.Int("turn", e.Turn))
	}
	if e.Depth != 0 {
		attrs = append(attrs, slog.Int("depth", e.Depth))
	}
	if e.ExitCode != nil {
		attrs = append(attrs, slog.Int("exit_code", *e.ExitCode))
	}
	for _, kv := range [][2]string{{"tool", e.Tool}, {"code", e.Code}, {"detail", e.Message},
		{"repairs", strings.Join(e.Repairs, ",")}, {"diagnostic", e.Diagnostic}} {
		if kv[1] != "" {
			attrs = append(attrs, slog.String(kv[0], kv[1]))
		}
	}
	r.log.LogAttrs(context.Background(), slogLevel(e.Level), logMessages[e.Kind], attrs...)
}

// logMessages are the constant log messages of the event kinds.
var logMessages = map[EventKind]string{
	EventTurn:       "Model turn",
	EventToolCall:   "Tool call",
	EventToolResult: "Tool result",
	EventRetry:      "Model request retried",
	EventWarning:    "Fallback",
	EventRepair:     "Conversation repaired",
	EventCompaction: "Conversation compacted",
	EventInput:      "Input reference inlined",
	EventDone:       "Run ended",
}

func slogLevel(l Level) slog.Level {
	switch l {
	case LevelError:
		return slog.LevelError
	case LevelWarning:
		return slog.LevelWarn
	case LevelInfo:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// callerKey holds, in the context of a tool call, the nesting depth of the
// run that made the call: 0 for the user's run, 1 for a sub-agent. It is
// the one decision a context carries besides cancellation and deadlines,
// so that a run started from a tool knows it is nested (A10) without the
// tool passing it along.
type callerKey struct{}

// withCaller marks ctx as belonging to a tool call of a run at depth.
func withCaller(ctx context.Context, depth int) context.Context {
	return context.WithValue(ctx, callerKey{}, depth)
}

// callerDepth returns the depth of the run whose tool call ctx belongs to;
// ok is false outside any run.
func callerDepth(ctx context.Context) (depth int, ok bool) {
	depth, ok = ctx.Value(callerKey{}).(int)
	return depth, ok
}

// emitReport is emit as a [Reporter]'s Report, for [Check].
func (r *run) emitReport(e Event) { r.emit(e) }

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

// scope is what a run lends to the tools it calls, through their context:
// its nesting depth (for the sub-agent depth check, A10), its options (the
// model and runner factory a sub-agent inherits) and its Reporter (which
// receives the sub-agent's events).
type scope struct {
	depth int
	opts  *RunOptions
	rep   Reporter
	log   *slog.Logger
}

type scopeKey struct{}

func withScope(ctx context.Context, s *scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// scopeOf returns the scope of the run whose tool call ctx belongs to, or
// nil outside any run.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

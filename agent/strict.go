package agent

import (
	"errors"
	"fmt"
)

// ErrStrict is the error of a run that strict mode stopped: a repair that
// would have been silent in production (A8).
var ErrStrict = errors.New("strict mode violation")

// Strict turns the engine's silent repairs into hard failures, per
// dimension (A8). Production runs leave it zero: every repair is made and
// reported as an event. Evaluation and CI runs (`agentls exec --strict`)
// switch dimensions on, so that the model never sees a context the engine
// made up (a synthetic tool result, a digest instead of a summary) without
// the run failing.
type Strict struct {
	// Pairing: a tool call without its result, a duplicate call ID or
	// result, an orphan result (A7).
	Pairing bool
	// Compaction: a compaction request failed, its answer had tool calls,
	// or its summary was empty (A9).
	Compaction bool
	// Normalizer: a normalizer failed or left the conversation invalid.
	Normalizer bool
}

// Check is the one call at every repair point (seed 002's
// StrictMode.Check). violated says the repair happened (the anomaly was
// there); enabled is the dimension of [Strict] the repair point belongs
// to. It returns an error wrapping [ErrStrict] when both are true. When
// the repair happened and its dimension is off, obs gets an
// [EventStrictWouldFail] event, so that a production log shows what a
// strict run would have stopped at; the caller reports the repair itself
// either way.
func Check(violated, enabled bool, obs Reporter, detail string) error {
	switch {
	case !violated:
		return nil
	case enabled:
		return fmt.Errorf("%w: %s", ErrStrict, detail)
	}
	if obs != nil {
		obs.Report(Event{Kind: EventStrictWouldFail, Code: "strict_mode_would_fail",
			Message: "strict mode would stop the run here: " + detail})
	}
	return nil
}

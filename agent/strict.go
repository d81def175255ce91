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

// Check is the one call at every repair point. violated says the repair
// happened (the anomaly was there); enabled is the dimension of [Strict]
// the repair point belongs to. It returns an error wrapping [ErrStrict]
// when both are true; otherwise nil, and the caller reports the repair as
// an observer event (which it does either way).
func Check(violated, enabled bool, detail string) error {
	if violated && enabled {
		return fmt.Errorf("%w: %s", ErrStrict, detail)
	}
	return nil
}

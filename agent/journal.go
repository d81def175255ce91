package agent

// Journal receives the conversation of a run as it grows, so that a
// session can persist it and survive a crash (A11, A16). The loop calls
// Checkpoint at every turn boundary: once the task is added (before the
// first request), after each turn's tool results are all in, and when the
// run ends. msgs is the whole conversation without the system prompt; at
// those points every tool call has its result. Checkpoint must not keep or
// modify msgs (the loop reuses its backing array) and must not block for
// long; a failure to persist is the Journal's to report, the run goes on.
type Journal interface {
	Checkpoint(msgs []Message)
}

// checkpoint hands the conversation to the run's Journal, if any.
func (r *run) checkpoint() {
	if r.opts.Journal != nil && len(r.msgs) > 1 {
		r.opts.Journal.Checkpoint(r.msgs[1:])
	}
}

package agent

import "github.com/agentls/agentls/tools"

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

// Explanation is why a step of a run (a tool call) was allowed, asked or
// denied and who let it run (E21): the gateway's, numbered as the run's
// step. Sessions keep it under this name.
type Explanation = tools.Explanation

// StepJournal is a Journal that also keeps why each tool call of the run
// was allowed, asked or denied (E21, issue 28): the loop hands it the
// gateway's explanation of every call, numbered from 1 in the run, as
// soon as the call has its result. Step must not keep e's pointer past
// the call's use, block for long, or fail the run.
type StepJournal interface {
	Journal
	Step(e *Explanation)
}

// step numbers the explanation of the run's step n and hands it to the
// run's journal, if it keeps steps; it returns the numbered explanation
// (nil when the call had none).
func (r *run) step(n, turn int, res *tools.Result) *Explanation {
	if res.Explain == nil {
		return nil
	}
	e := *res.Explain
	e.Step, e.Turn = n, turn
	if j, ok := r.opts.Journal.(StepJournal); ok {
		j.Step(&e)
	}
	return &e
}

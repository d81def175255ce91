package proposalcheck

import (
	"context"
	"fmt"
	"time"
)

// Pending is a run of checks in the background ([Start]).
type Pending struct {
	budget time.Duration
	done   chan struct{}
	res    *Result
}

// Start runs checks on proposed in the background (see [Runner.Run]),
// for at most limit; a question waits for it at most budget
// ([Pending.Line]). Cancelling ctx stops the checks. A nil Pending (no
// checks) is valid: its Line is "" and it is done.
func (r *Runner) Start(ctx context.Context, root string, proposed map[string][]byte, checks []Check, budget, limit time.Duration) *Pending {
	if len(checks) == 0 {
		return nil
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	p := &Pending{budget: budget, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.res = r.Run(ctx, root, proposed, checks, limit)
	}()
	return p
}

// Line waits for the checks at most the budget (less when ctx ends) and
// returns the line for the question: the result's [Result.Summary], or
// "checks: pending (…)" when they are still running.
func (p *Pending) Line(ctx context.Context) string {
	if p == nil {
		return ""
	}
	t := time.NewTimer(p.budget)
	defer t.Stop()
	select {
	case <-p.done:
		return p.res.Summary()
	case <-t.C:
	case <-ctx.Done():
	}
	return fmt.Sprintf("checks: pending (still running after %s; the result follows when done)", seconds(p.budget))
}

// Done is closed when the checks have finished; [Pending.Result] is then
// their result.
func (p *Pending) Done() <-chan struct{} {
	if p == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.done
}

// Result is the checks' result once [Pending.Done] is closed, nil before
// (and for a nil Pending).
func (p *Pending) Result() *Result {
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
		return p.res
	default:
		return nil
	}
}

package acp

import (
	"context"
	"sync"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// checks are the checks on one proposal (E22, tools/proposalcheck): the
// first hunk's question waits for them at most the user's budget and
// shows their line in the permission request's content; a result that
// comes later is noted on the tool call.
type checks struct {
	run    *proposalcheck.Pending
	cancel context.CancelFunc
	stop   chan struct{}
	wg     sync.WaitGroup

	once sync.Once
	text string
}

// startChecks starts the checks of ch when a hunk of it will be asked;
// nil means none.
func (pr *proposer) startChecks(ctx context.Context, c *toolCall, ch *tools.FileChange, control bool) *checks {
	if ch.Preapproved && !control {
		return nil
	}
	cctx, cancel := context.WithCancel(ctx)
	run := proposalcheck.StartUser(cctx, pr.p.a.o.Exec, pr.ws.dir, ch.Path, ch.New)
	if run == nil {
		cancel()
		return nil
	}
	k := &checks{run: run, cancel: cancel, stop: make(chan struct{})}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		select {
		case <-k.stop:
		case <-run.Done():
			if k.line(ctx) != run.Result().Summary() {
				c.note(sandbox.Visible(ch.Path) + ": " + run.Result().Summary())
			}
		}
	}()
	return k
}

// line waits for the checks at most the budget, once, and returns their
// line ("" for none).
func (k *checks) line(ctx context.Context) string {
	if k == nil {
		return ""
	}
	k.once.Do(func() { k.text = k.run.Line(ctx) })
	return k.text
}

// finish stops the checks: the user has decided.
func (k *checks) finish() {
	if k == nil {
		return
	}
	close(k.stop)
	k.cancel()
	k.wg.Wait()
	<-k.run.Done()
}

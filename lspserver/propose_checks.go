package lspserver

import (
	"context"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// Checks on the proposal (E22, issue 28): before a change's question is
// shown, the project's cheap checks run on a copy-on-write view of the
// workspace holding the proposed file (tools/proposalcheck); the question
// waits for them at most the user's budget and shows their line
// ("checks: builds; go vet clean", "checks: go build: 1 problem: …",
// "checks: pending …"). Their problems are published as diagnostics
// (source "agentls checks") while the question is open; a result that
// comes after the question was shown is published then, with a message,
// and every checks diagnostic is withdrawn once the user decided.

// checksSource is the diagnostics' source.
const checksSource = "agentls checks"

// proposalChecks are the checks of one proposal; nil means none.
type proposalChecks struct {
	p      *proposer
	pr     *proposal
	run    *proposalcheck.Pending
	cancel context.CancelFunc
	stop   chan struct{}
	wg     sync.WaitGroup

	once sync.Once
	line string // the line the question shows, once waited for

	mu        sync.Mutex
	published []uri.URI // documents holding checks diagnostics
}

// startChecks starts the checks of a proposal the user is asked about,
// with the user's configuration (never the project's); a config file
// that cannot be read runs none and says why.
func (p *proposer) startChecks(ctx context.Context, pr *proposal) *proposalChecks {
	if pr.ch.Preapproved && !pr.ch.Control {
		return nil // nobody is asked
	}
	cctx, cancel := context.WithCancel(ctx)
	run := proposalcheck.StartUser(cctx, p.s.opts.Exec, p.s.root, pr.ch.Path, pr.ch.New)
	if run == nil {
		cancel()
		return nil
	}
	pc := &proposalChecks{p: p, pr: pr, cancel: cancel, stop: make(chan struct{}), run: run}
	pc.wg.Add(1)
	go pc.follow(ctx)
	return pc
}

// follow publishes the result when it comes, and tells the user when it
// comes after the question was shown; it ends with the proposal.
func (pc *proposalChecks) follow(ctx context.Context) {
	defer pc.wg.Done()
	select {
	case <-pc.stop:
		return
	case <-pc.run.Done():
	}
	res := pc.run.Result()
	pc.publish(ctx, res)
	pc.mu.Lock()
	late := pc.line != "" && strings.HasPrefix(pc.line, "checks: pending")
	pc.mu.Unlock()
	if late {
		pc.p.s.showMessage(ctx, protocol.MessageTypeInfo,
			"agentls: the proposed change to "+sandbox.Visible(pc.pr.ch.Path)+": "+res.Summary())
	}
}

// Line waits for the checks at most the budget, once, and returns the
// line for the question ("" without checks).
func (pc *proposalChecks) Line(ctx context.Context) string {
	if pc == nil {
		return ""
	}
	pc.once.Do(func() {
		l := pc.run.Line(ctx)
		pc.mu.Lock()
		pc.line = l
		pc.mu.Unlock()
	})
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.line
}

// suffix is the question's text for the checks: "\n\n" and the line.
func (pc *proposalChecks) suffix(ctx context.Context) string {
	if l := pc.Line(ctx); l != "" {
		return "\n\n" + l
	}
	return ""
}

// annotate adds the checks' line to the description of each change
// annotation of an edit that asks (VS Code shows it in the preview; the
// headless client prints it with its question).
func (pc *proposalChecks) annotate(ctx context.Context, params *protocol.ApplyWorkspaceEditParams) {
	if pc == nil || params == nil || len(params.Edit.ChangeAnnotations) == 0 {
		return
	}
	l := pc.Line(ctx)
	if l == "" {
		return
	}
	for id, a := range params.Edit.ChangeAnnotations {
		d := l
		if a.Description != nil && *a.Description != "" {
			d = *a.Description + " — " + l
		}
		a.Description = &d
		params.Edit.ChangeAnnotations[id] = a
	}
}

// finish stops the checks and withdraws their diagnostics: the user has
// decided.
func (pc *proposalChecks) finish(ctx context.Context) {
	if pc == nil {
		return
	}
	close(pc.stop)
	pc.cancel()
	pc.wg.Wait()
	<-pc.run.Done()
	pc.clear(ctx)
}

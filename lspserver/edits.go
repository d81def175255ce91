package lspserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// editCounts counts a run's edit proposals, which tool calls may make
// concurrently.
type editCounts struct {
	mu sync.Mutex // guards n
	n  command.EditCounts
}

func (c *editCounts) add(proposed, applied, rejected int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.Proposed += proposed
	c.n.Applied += applied
	c.n.Rejected += rejected
}

// wire returns the counts for the "edits" member of the result (E3).
func (c *editCounts) wire() command.EditCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// proposer implements tools.EditProposer for one run: every change becomes
// a workspace/applyEdit the user approves (E6); nothing is written to disk
// by the server.
type proposer struct {
	s      *Server
	ws     *workspace
	counts *editCounts
	// timeout bounds each question and request of a proposal: the run
	// policy's approval timeout (E7, T15), as for every question.
	timeout time.Duration

	mu    sync.Mutex         // guards dirty
	dirty map[uri.URI]string // applied in a buffer, not yet on disk: rel path
}

func (p *proposer) Propose(ctx context.Context, ch *tools.FileChange) (*tools.EditOutcome, error) {
	out, err := p.propose(ctx, ch)
	if err != nil {
		return nil, err
	}
	if out.Applied {
		p.counts.add(1, 1, 0)
	} else {
		p.counts.add(1, 0, 1)
	}
	return out, nil
}

func (p *proposer) propose(ctx context.Context, ch *tools.FileChange) (*tools.EditOutcome, error) {
	s := p.s
	if rel, err := sandbox.ResolvePath(s.root, ch.Path); err != nil || rel != ch.Path {
		return refuse("%s is outside the workspace", ch.Path), nil
	}
	u := s.uriFor(ch.Path)
	doc, open := s.docs.get(u)
	if open && !doc.held {
		return refuse("%s is open in a buffer larger than agentls holds", ch.Path), nil
	}
	disk, onDisk := p.ws.disk(ch.Path)

	// T17: the proposal must apply to what the user has now.
	cur, exists := disk, onDisk
	if open {
		cur, exists = doc.text, true
	}
	switch {
	case ch.Create && exists:
		return stale("%s was created meanwhile; read it first", ch.Path), nil
	case !ch.Create && !exists:
		return stale("%s no longer exists", ch.Path), nil
	case !ch.Create && cur != string(ch.Old):
		return stale("%s changed since it was read", ch.Path), nil
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	if !caps.applyEdit {
		return refuse("the editor cannot apply workspace edits"), nil
	}
	if ch.Create && caps.documentChanges && !caps.createFiles {
		return refuse("the editor cannot create files; ask the user to create %s", ch.Path), nil
	}
	hs := computeHunks(cur, string(ch.New))
	if len(hs) == 0 {
		return &tools.EditOutcome{Applied: true, Saved: !open || doc.text == disk, Reason: "no change"}, nil
	}

	// Clients that cannot show per-hunk confirmation get one question with
	// the diff first; Neovim, for one, applies edits the moment they arrive.
	pre := ch.Preapproved
	if !caps.annotations && !pre {
		msg := fmt.Sprintf("agentls wants to change %s:\n\n%s", ch.Path, unifiedDiff(ch.Path, cur, string(ch.New)))
		if p.ask(ctx, protocol.MessageTypeInfo, msg, command.ActionApprove, command.ActionDeny) != command.ActionApprove {
			return refuse("the user declined the change to %s", ch.Path), nil
		}
	}

	var version *int32
	if open {
		v := doc.version
		version = &v
	}
	params := buildEdit(caps, u, ch, version, cur, hs, !pre)
	var res protocol.ApplyWorkspaceEditResult
	if err := p.call(ctx, "workspace/applyEdit", params, &res); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return refuse("the editor did not apply the change (%v)", err), nil
	}
	if !res.Applied {
		reason := "the user rejected the change"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		return refuse("%s", reason), nil
	}
	return p.verify(ctx, ch, u, cur, hs, open, doc.version, open && doc.text != disk)
}

// ask and call bound one question or request of a proposal by the run's
// approval timeout; no answer in time is a deny. The wait does not count
// against the tool call's own time limit (tools.AwaitUser): the approval
// timeout alone bounds it.
func (p *proposer) ask(ctx context.Context, typ protocol.MessageType, msg string, actions ...string) string {
	defer tools.AwaitUser(ctx)()
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.s.ask(ctx, typ, msg, actions...)
}

func (p *proposer) call(ctx context.Context, method string, params, result any) error {
	defer tools.AwaitUser(ctx)()
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	err := p.s.clientCall(ctx, method, params, result)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within the approval timeout of %s", p.timeout)
	}
	return err
}

func stale(format string, args ...any) *tools.EditOutcome {
	return &tools.EditOutcome{Stale: true, Reason: fmt.Sprintf(format, args...)}
}

func refuse(format string, args ...any) *tools.EditOutcome {
	return &tools.EditOutcome{Applied: false, Reason: fmt.Sprintf(format, args...)}
}

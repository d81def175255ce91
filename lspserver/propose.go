package lspserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// proposer implements tools.EditProposer for one run: every change becomes
// a workspace/applyEdit the user approves (E6). The server writes to disk
// only an approved change to a file the editor does not hold, and only
// when the disk still holds what the change was computed against
// (propose_closed.go).
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
	out, shown, err := p.propose(ctx, ch)
	if err != nil {
		return nil, err
	}
	p.counts.count(ch, out, shown)
	return out, nil
}

// NoteStale counts a change to rel a tool refused as stale before it
// proposed it (E18).
func (p *proposer) NoteStale(rel string) { p.counts.noteStale() }

// propose shows one change and reports what landed. The file must still be
// what the change was computed against when the proposal starts, while its
// question is open, right before the edit is sent, and — when the editor
// refuses the edit — afterwards; otherwise the change is refused as stale
// with the new content's hash (T17, E14). What landed is compared with the
// proposal hunk by hunk (propose_verify.go). shown is the number of hunks
// put to the user: 0 when the change was refused before.
func (p *proposer) propose(ctx context.Context, ch *tools.FileChange) (out *tools.EditOutcome, shown int, err error) {
	pr, out := p.prepare(ch)
	if out != nil {
		return out, 0, nil
	}
	if len(pr.hs) == 0 {
		return &tools.EditOutcome{Applied: true, Saved: !pr.v.open || pr.v.text == pr.v.disk, Reason: "no change"}, 0, nil
	}
	pr.checks = p.startChecks(ctx, pr) // E22 (propose_checks.go)
	defer pr.checks.finish(ctx)
	pre, out := p.confirm(ctx, pr)
	if out != nil {
		return out, len(pr.hs), nil
	}
	out, err = p.send(ctx, pr, pre)
	return out, len(pr.hs), err
}

// proposal is one change on its way to the editor: the change, the file
// as the proposal found it, the client's capabilities and the hunks.
type proposal struct {
	ch   *tools.FileChange
	u    uri.URI
	v    fileView
	caps clientCaps
	hs   []hunk

	checks *proposalChecks // E22: the checks on the proposal, nil for none
}

// prepare checks that the change may be proposed at all and is still
// against what the file holds, and computes its hunks; a refusal or a
// stale outcome is returned instead.
func (p *proposer) prepare(ch *tools.FileChange) (*proposal, *tools.EditOutcome) {
	s := p.s
	if rel, err := sandbox.ResolvePath(s.root, ch.Path); err != nil || rel != ch.Path {
		return nil, refuse("%s is outside the workspace", ch.Path)
	}
	if control, own := sandbox.IsControlPath(ch.Path); own {
		return nil, refuse("%s is one of agentls' own control files", ch.Path)
	} else if control && !ch.Control { // E15 whoever built the change
		ch = &tools.FileChange{Path: ch.Path, Old: ch.Old, New: ch.New, Create: ch.Create, Tool: ch.Tool, Control: true}
	}
	u := s.uriFor(ch.Path)
	if doc, open := s.docs.get(u); open && !doc.held {
		return nil, refuse("%s is open in a buffer larger than agentls holds", ch.Path)
	}
	v := p.view(ch.Path)
	switch {
	case ch.Create && v.exists:
		return nil, stale("%s was created meanwhile; read it first", ch.Path)
	case !ch.Create && !v.exists:
		return nil, stale("%s no longer exists", ch.Path)
	case !ch.Create && v.text != string(ch.Old):
		return nil, staleNow(ch.Path, v, "changed since it was read")
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	if !caps.applyEdit {
		return nil, refuse("the editor cannot apply workspace edits")
	}
	if ch.Create && caps.documentChanges && !caps.createFiles {
		return nil, refuse("the editor cannot create files; ask the user to create %s", ch.Path)
	}
	if !v.open && v.exists {
		// The disk holds ch.Old (checked above): the proposal keeps the
		// change's own bytes rather than a second copy of the file.
		v.text = frozenString(ch.Old)
		v.disk = v.text
	}
	return &proposal{ch: ch, u: u, v: v, caps: caps, hs: ownHunks(computeHunks(v.text, frozenString(ch.New)))}, nil
}

// ownHunks copies the hunks' texts out of the texts they were computed
// from, so that a hunk never keeps a whole file alive.
func ownHunks(hs []hunk) []hunk {
	for i := range hs {
		hs[i].Repl, hs[i].Lines, hs[i].What = strings.Clone(hs[i].Repl), strings.Clone(hs[i].Lines), strings.Clone(hs[i].What)
	}
	return hs
}

// confirm asks the user first where the flow says so, and reports
// whether the edit may go without the editor's own confirmation. A
// control file (E15) is always asked here, one by one with its warning,
// whatever annotations the client shows and the policy says.
func (p *proposer) confirm(ctx context.Context, pr *proposal) (pre bool, out *tools.EditOutcome) {
	ch, cur := pr.ch, pr.v.text
	pre = ch.Preapproved && !ch.Control
	flow := chooseFlow(pr.caps, pr.v.open || ch.Create, pre)
	if ch.Control {
		flow = flowAsk
	}
	if flow == flowOpenFirst && !p.openDocument(ctx, pr.u) {
		flow = flowAsk
	}
	if flow != flowAsk {
		return pre, nil
	}
	// One question with the diff first, for clients that do not show
	// per-hunk confirmation; Neovim, for one, applies edits the moment
	// they arrive. The question is withdrawn when the file changes.
	msg := fmt.Sprintf("agentls wants to change %s:\n\n%s", ch.Path, unifiedDiff(ch.Path, cur, frozenString(ch.New))) + pr.checks.suffix(ctx)
	typ, approve := protocol.MessageTypeInfo, command.ActionApprove
	if ch.Control {
		msg, typ, approve = controlWarning(ch)+"\n\n"+msg, protocol.MessageTypeWarning, command.ActionApproveControl
	}
	answer, changed := p.askWatching(ctx, ch.Path, cur, !ch.Create, typ, msg, approve)
	if changed != nil {
		return false, changed
	}
	if answer != approve {
		return false, refuse("the user declined the change to %s", ch.Path)
	}
	// Approved as shown: the editor need not ask again, except for a
	// control file (E15), which stays marked for confirmation.
	return !ch.Control, nil
}

// send proposes the edit with workspace/applyEdit and verifies what
// landed. T17: the file is re-checked right before sending, so a change
// made while the question was open never gets the old ranges.
func (p *proposer) send(ctx context.Context, pr *proposal, pre bool) (*tools.EditOutcome, error) {
	ch, cur := pr.ch, pr.v.text
	now := p.view(ch.Path)
	if !now.holds(cur, !ch.Create) {
		return staleNow(ch.Path, now, "changed while the change waited for approval"), nil
	}
	if writesClosed(pr, now) {
		return p.writeClosed(pr), nil
	}
	// What verify needs of now, taken before the edit is sent, so that the
	// disk's text read here is not kept while the editor applies it.
	wasOpen, oldVersion, userDirty := now.open, now.version, now.open && now.text != now.disk
	var version *int32
	if wasOpen {
		version = &oldVersion
	}
	params := buildEdit(pr.caps, pr.u, ch, version, cur, pr.hs, !pre)
	pr.checks.annotate(ctx, params)
	var res applyReply // with the user's reasons and edits (propose_reason.go)
	if err := p.call(ctx, "workspace/applyEdit", params, &res); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return refuse("the editor did not apply the change (%v)", err), nil
	}
	if !res.Applied {
		if after := p.view(ch.Path); !after.holds(cur, !ch.Create) {
			return staleNow(ch.Path, after, "changed while the editor held the change, which it refused"), nil
		}
		reason := "the user rejected the change"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		if strings.HasPrefix(reason, "stale:") {
			// Our Neovim plugin refuses an edit for a buffer or file that
			// changed meanwhile with a "stale: …" reason (E18).
			return stale("%s", reason), nil
		}
		out := refuse("%s", reason)
		out.UserReason = res.Agentls.userReason(pr.hs)
		return out, nil
	}
	hs, changed := res.Agentls.edited(pr.hs)
	out, err := p.verify(ctx, ch, pr.u, cur, hs, wasOpen, oldVersion, userDirty)
	res.Agentls.tellUser(out, pr.hs, changed)
	return out, err
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

// controlWarning is the warning shown before a change to a control file.
func controlWarning(ch *tools.FileChange) string {
	if ch.Warning != "" {
		return ch.Warning
	}
	return tools.ControlWarning
}

package lspserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// verifyTimeout bounds the wait for an applied edit to show up in the
// overlay or on disk.
const verifyTimeout = 5 * time.Second

// verify re-reads the document after the client said it applied the edit
// and reports which hunks really landed, then makes sure the result
// reaches the disk without saving edits of the user's own.
func (p *proposer) verify(ctx context.Context, ch *tools.FileChange, u uri.URI, old string, hs []hunk, wasOpen bool, oldVersion int32, userDirty bool) (*tools.EditOutcome, error) {
	expected := frozenString(ch.New) // not a copy (issue 27 item 2)
	got, fromBuffer, seen := p.await(ctx, u, ch.Path, old, expected, wasOpen, oldVersion, !ch.Create)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := &tools.EditOutcome{}
	if !seen {
		// The editor applied it to a hidden buffer we cannot see; it lands
		// on disk when the user saves.
		p.markDirty(u, ch.Path)
		out.Applied = true
		out.Reason = "the editor applied the change to an unsaved buffer; it is not on disk yet"
		for i, h := range hs {
			out.Hunks = append(out.Hunks, tools.HunkOutcome{Index: i, Lines: h.Lines, Applied: true})
		}
		return out, nil
	}
	if ch.Create && got == "" && expected != "" {
		return p.emptyCreate(ctx, ch.Path), nil
	}
	applied, ok := landed(old, got, hs)
	n := 0
	for i, h := range hs {
		out.Hunks = append(out.Hunks, tools.HunkOutcome{Index: i, Lines: h.Lines, Applied: applied[i]})
		if applied[i] {
			n++
		}
	}
	switch {
	case !ok:
		return p.mismatch(ctx, ch.Path, got), nil
	case n == 0:
		out.Reason = "the user refused every hunk"
		return out, nil
	case n < len(hs):
		out.Reason = fmt.Sprintf("the user applied %d of %d hunks and refused the rest", n, len(hs))
	}
	out.Applied = true
	if !fromBuffer {
		out.Saved = true // it was read back from disk
		return out, nil
	}
	if userDirty {
		out.Reason = joinReason(out.Reason, "not saved: the buffer also holds unsaved edits of the user's")
		return out, nil
	}
	out.Saved = p.save(ctx, u, ch.Path, got)
	return out, nil
}

// emptyCreate reports a new file that landed without its content (an
// editor that applied the CreateFile alone: VS Code's preview with the
// content unticked) as not applied, and removes the empty file (E18).
func (p *proposer) emptyCreate(ctx context.Context, rel string) *tools.EditOutcome {
	out := &tools.EditOutcome{Reason: "the editor created " + rel + " empty, without the proposed content"}
	if why := p.deleteFile(ctx, rel, "agentls: remove the empty "+rel, "agentls: remove "+rel+" (created without its content)"); why != "" {
		out.Reason += "; the empty file is left: " + why
	} else {
		out.Reason += "; the empty file was removed"
	}
	return out
}

// await waits until the edit shows: in the overlay when the document is
// open (a new version), or on disk. seen is false when it never showed.
// A closed file whose disk content moved away from old (or that exists
// now, when it did not before) and then stayed put counts as what landed,
// whatever it holds.
func (p *proposer) await(ctx context.Context, u uri.URI, rel, old, expected string, wasOpen bool, oldVersion int32, existed bool) (got string, fromBuffer, seen bool) {
	s := p.s
	if !wasOpen {
		if d, ok := p.ws.disk(rel); ok && d == expected {
			return d, false, true // a client that writes the disk (headless)
		}
		if s.saveDocumentsSupported() && p.saveDocs(ctx, u) {
			if d, ok := p.ws.disk(rel); ok {
				return d, false, true
			}
		}
	}
	timer := time.NewTimer(verifyTimeout)
	defer timer.Stop()
	tick := time.NewTicker(settleTime)
	defer tick.Stop()
	last, lastOK := "", false
	for {
		changed := s.docs.changes()
		if doc, ok := s.docs.get(u); ok && (!wasOpen || doc.version != oldVersion || doc.text == expected) {
			return doc.text, true, true
		}
		d, ok := p.ws.disk(rel)
		if ok && d == expected {
			return d, false, true
		}
		moved := ok && (d != old || !existed)
		if !wasOpen && moved && lastOK && d == last {
			return d, false, true // changed on disk, and settled
		}
		last, lastOK = d, moved
		select {
		case <-changed:
		case <-tick.C:
		case <-timer.C:
			if doc, ok := s.docs.get(u); ok {
				return doc.text, true, true
			}
			if d, ok := p.ws.disk(rel); ok && (d != old || !existed) && !wasOpen {
				return d, false, true
			}
			return "", false, false
		case <-ctx.Done():
			return "", false, false
		}
	}
}

// settleTime is how long a changed file must stay put before it counts as
// what an editor wrote.
const settleTime = 100 * time.Millisecond

func (s *Server) saveDocumentsSupported() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.saveDocuments
}

// save gets an applied buffer onto the disk: at once through our plugins'
// agentls/saveDocuments, or at the end of the run by asking the user.
func (p *proposer) save(ctx context.Context, u uri.URI, rel, want string) bool {
	if !p.s.saveDocumentsSupported() {
		p.markDirty(u, rel)
		return false
	}
	if !p.saveDocs(ctx, u) {
		return false
	}
	d, ok := p.ws.disk(rel)
	return ok && d == want
}

// DefaultSaveDocumentsTimeout bounds agentls/saveDocuments when
// [Options.SaveDocumentsTimeout] is zero: saving needs no one's answer, so
// an editor that has not saved within seconds is not going to (issue 26:
// a client that never answered held the run for the whole approval
// timeout, 300 s).
const DefaultSaveDocumentsTimeout = 5 * time.Second

func (p *proposer) saveDocs(ctx context.Context, uris ...uri.URI) bool {
	params := &command.SaveDocumentsParams{URIs: make([]string, len(uris))}
	for i, u := range uris {
		params.URIs[i] = u.String()
	}
	var res command.SaveDocumentsResult
	defer tools.AwaitUser(ctx)()
	d := p.s.opts.SaveDocumentsTimeout
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := p.s.clientCall(sctx, command.MethodSaveDocuments, params, &res); err != nil {
		if ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
			p.s.warnUser(ctx, fmt.Sprintf("the editor did not save %s within %s (agentls/saveDocuments unanswered); the run goes on with what is on disk",
				strings.Join(params.URIs, ", "), d), false)
		}
		return false
	}
	return len(res.Saved) == len(params.URIs)
}

func (p *proposer) markDirty(u uri.URI, rel string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirty == nil {
		p.dirty = make(map[uri.URI]string)
	}
	p.dirty[u] = rel
}

// Flush asks a client without agentls/saveDocuments to save the buffers
// the run changed, then waits for their didSave (bounded). It returns the
// paths still not saved.
func (p *proposer) Flush(ctx context.Context) []string {
	p.mu.Lock()
	dirty := p.dirty
	p.dirty = nil
	p.mu.Unlock()
	if len(dirty) == 0 {
		return nil
	}
	var names []string
	waits := map[string]<-chan struct{}{}
	for u, rel := range dirty {
		names = append(names, rel)
		waits[rel] = p.s.docs.waitSaved(u)
	}
	msg := fmt.Sprintf("agentls changed %v in the editor. Save them so commands and tests see the changes.", names)
	if p.ask(ctx, protocol.MessageTypeInfo, msg, command.ActionSaved, command.ActionNotNow) == "" {
		return names
	}
	var left []string
	wctx, cancel := context.WithTimeout(ctx, p.s.opts.SaveTimeout)
	defer cancel()
	for rel, ch := range waits {
		select {
		case <-ch:
		case <-wctx.Done():
			left = append(left, rel)
		}
	}
	return left
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

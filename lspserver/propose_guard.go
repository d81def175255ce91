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
	"github.com/agentls/agentls/tools"
)

// fileView is what the user has of one file now: the open buffer when
// there is one, else the disk.
type fileView struct {
	text    string
	exists  bool
	open    bool
	version int32 // of the buffer, when open
	disk    string
	onDisk  bool
}

func (p *proposer) view(rel string) fileView {
	doc, open := p.s.docs.get(p.s.uriFor(rel))
	disk, onDisk := p.ws.disk(rel)
	v := fileView{text: disk, exists: onDisk, open: open, disk: disk, onDisk: onDisk}
	if open {
		v.text, v.exists, v.version = doc.text, true, doc.version
	}
	return v
}

// holds reports whether the view still shows text (or, for a file to be
// created, still no file).
func (v fileView) holds(text string, exists bool) bool {
	return v.exists == exists && (!exists || v.text == text)
}

// staleNow refuses a change because rel is no longer what it was computed
// against, and tells the model the new content's hash (T17).
func staleNow(rel string, v fileView, why string) *tools.EditOutcome {
	if !v.exists {
		return stale("%s %s: it no longer exists; list the directory again", rel, why)
	}
	return stale("%s %s; its content is now sha256:%s. Read it again and recompute the change",
		rel, why, tools.HashContent([]byte(v.text)))
}

// editFlow is how one proposal reaches the editor (E14).
type editFlow int

const (
	// flowSend sends the edit as it is: preapproved, or annotated for a
	// client that confirms annotations, on an open (versioned) document.
	flowSend editFlow = iota
	// flowOpenFirst opens a closed file with window/showDocument first,
	// so that the edit is versioned and an editor that reloads the file
	// while its preview is open refuses it.
	flowOpenFirst
	// flowAsk asks with window/showMessageRequest (the diff shown) and
	// sends the edit, preapproved, only after an approval.
	flowAsk
)

// chooseFlow picks the flow of a proposal that is not a no-op. A client
// whose annotations are not trusted is asked first (E14); a trusted one
// gets a closed file opened first where it can, else is asked too, since
// an unversioned edit held in a preview would land on whatever the file
// holds by then. Our own plugins check the disk themselves before they
// apply an unversioned edit.
func chooseFlow(caps clientCaps, openOrCreate, preapproved bool) editFlow {
	switch {
	case preapproved:
		return flowSend
	case !caps.confirmsAnnotations:
		return flowAsk
	case openOrCreate:
		return flowSend
	case caps.showDocument:
		return flowOpenFirst
	case caps.ownPlugin:
		return flowSend
	}
	return flowAsk
}

// openTimeout bounds the wait for the didOpen that follows showDocument.
const openTimeout = 5 * time.Second

// openDocument opens u in the editor without taking focus and waits until
// its didOpen arrived; false when it did not.
func (p *proposer) openDocument(ctx context.Context, u uri.URI) bool {
	no := false
	var res protocol.ShowDocumentResult
	if err := p.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: u, TakeFocus: &no}, &res); err != nil || !res.Success {
		return false
	}
	timer := time.NewTimer(openTimeout)
	defer timer.Stop()
	for {
		changed := p.s.docs.changes()
		if _, ok := p.s.docs.get(u); ok {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// errFileChanged withdraws a question whose file changed.
var errFileChanged = errors.New("the file changed while the question was open")

// askWatching asks whether to apply a change to rel while watching the
// file: when it no longer holds cur (an edit in the editor, a change on
// disk that the watch or the client reports), the question is withdrawn
// ($/cancelRequest) and the change refused as stale. approve is the
// approving action offered ([command.ActionApproveControl] for a control
// file).
func (p *proposer) askWatching(ctx context.Context, rel, cur string, exists bool, typ protocol.MessageType, msg, approve string) (string, *tools.EditOutcome) {
	qctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			changed := p.s.docs.changes()
			if !p.view(rel).holds(cur, exists) {
				cancel(errFileChanged)
				return
			}
			select {
			case <-changed:
			case <-qctx.Done():
				return
			}
		}
	})
	answer := p.ask(qctx, typ, msg, approve, command.ActionDeny)
	cancel(nil)
	wg.Wait()
	if errors.Is(context.Cause(qctx), errFileChanged) {
		return "", staleNow(rel, p.settledView(ctx, rel), "changed while the question about the change was open")
	}
	return answer, nil
}

// settledView waits until rel stays put for settleTime (a program that
// truncates, then writes, is seen between the two), at most a second, and
// returns what it holds then.
func (p *proposer) settledView(ctx context.Context, rel string) fileView {
	v := p.view(rel)
	for range 10 {
		select {
		case <-time.After(settleTime):
		case <-ctx.Done():
			return v
		}
		next := p.view(rel)
		if next.holds(v.text, v.exists) {
			return next
		}
		v = next
	}
	return v
}

// mismatch is the outcome of an edit the editor applied that did not land
// as proposed: the model is told, and so is the user, never as applied.
func (p *proposer) mismatch(ctx context.Context, rel, got string) *tools.EditOutcome {
	p.s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
		"agentls: the change to %s did not land as proposed (the file changed while it was applied); check the file", rel))
	return stale("what landed in %s is not what was proposed: the file changed while the change was applied; "+
		"its content is now sha256:%s. Read it again", rel, tools.HashContent([]byte(got)))
}

package lspserver

import (
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// document is one buffer open in the editor.
type document struct {
	uri     uri.URI
	version int32
	text    string
}

// documents is the overlay of open buffers, so the agent reads what the
// user sees (E9). Notifications update it in wire order on the read loop.
type documents struct {
	mu      sync.Mutex // guards docs and changed
	docs    map[uri.URI]*document
	changed chan struct{} // closed and replaced on every change
	saved   map[uri.URI]chan struct{}
}

func newDocuments() *documents {
	return &documents{docs: make(map[uri.URI]*document), changed: make(chan struct{}), saved: make(map[uri.URI]chan struct{})}
}

// notify wakes every waiter; callers hold d.mu.
func (d *documents) notify() {
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *documents) open(u uri.URI, version int32, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[u] = &document{uri: u, version: version, text: text}
	d.notify()
}

func (d *documents) close(u uri.URI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.docs, u)
	d.notify()
}

// change applies content changes in order. A version that does not grow is
// refused, and so is a change to a document that is not open: the overlay
// never guesses.
func (d *documents) change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[u]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", u)
	}
	if version <= doc.version {
		return fmt.Errorf("didChange for %s: version %d after %d", u, version, doc.version)
	}
	text := doc.text
	for _, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			next, err := ApplyEdits(text, []protocol.TextEdit{{Range: c.Range, NewText: c.Text}})
			if err != nil {
				// The overlay no longer matches the editor: drop it so reads
				// fall back to disk rather than to a wrong buffer.
				delete(d.docs, u)
				d.notify()
				return fmt.Errorf("didChange for %s: %v", u, err)
			}
			text = next
		}
	}
	doc.text, doc.version = text, version
	d.notify()
	return nil
}

// didSave records a save and wakes waiters.
func (d *documents) didSave(u uri.URI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ch, ok := d.saved[u]; ok {
		close(ch)
		delete(d.saved, u)
	}
	d.notify()
}

// waitSaved returns a channel closed at the next didSave of u.
func (d *documents) waitSaved(u uri.URI) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, ok := d.saved[u]
	if !ok {
		ch = make(chan struct{})
		d.saved[u] = ch
	}
	return ch
}

// get returns a copy of the open document u.
func (d *documents) get(u uri.URI) (document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[u]
	if !ok {
		return document{}, false
	}
	return *doc, true
}

// touch wakes every waiter: a file changed on disk (E10), so whoever read
// one re-reads it.
func (d *documents) touch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notify()
}

// changes returns a channel closed at the next change of any document, or
// of any file on disk as far as the server hears of it ([documents.touch]).
func (d *documents) changes() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

package lspserver

import (
	"crypto/sha256"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
)

// Bounds of the document store (#12): a buffer over maxDocBytes, or one
// that would take the text held over maxHeldBytes, is tracked by version,
// size and hash only; reads of it fall back to the disk when the disk has
// the same content, else fail as too large.
const (
	maxDocBytes  = sandbox.MaxFileBytes
	maxHeldBytes = 64 << 20
	// freeAfterBytes: releasing this much text returns memory to the
	// system at once, rather than whenever the runtime gets to it.
	freeAfterBytes = 4 << 20
)

// document is one buffer open in the editor.
type document struct {
	uri     uri.URI
	version int32
	text    string // the content, when held
	held    bool   // text is the buffer's content
	// size and sum describe the content of a buffer not held, while known:
	// an incremental change to it cannot be applied, and it is unknown
	// from then on (until a change sends the whole text).
	size  int
	sum   [sha256.Size]byte
	known bool
}

// documents is the overlay of open buffers, so the agent reads what the
// user sees (E9). Notifications update it in wire order on the read loop.
type documents struct {
	mu      sync.Mutex // guards the fields below
	docs    map[uri.URI]*document
	held    int           // bytes of text held, in total
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

// own copies a URI decoded by protocol.Unmarshal, which aliases the
// whole message: kept as a map key, it would keep a 50 MB didOpen alive.
func own(u uri.URI) uri.URI { return uri.URI(strings.Clone(string(u))) }

func (d *documents) open(u uri.URI, version int32, text string) {
	u = own(u)
	d.mu.Lock()
	defer d.mu.Unlock()
	freed := d.drop(u)
	doc := &document{uri: u, version: version}
	d.docs[u] = doc
	d.setText(doc, text)
	d.notify()
	freeMemory(freed)
}

func (d *documents) close(u uri.URI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	freed := d.drop(u)
	d.notify()
	freeMemory(freed)
}

// drop forgets u and returns the bytes of text it held; callers hold mu.
func (d *documents) drop(u uri.URI) int {
	doc, ok := d.docs[u]
	if !ok {
		return 0
	}
	delete(d.docs, u)
	if !doc.held {
		return 0
	}
	d.held -= len(doc.text)
	return len(doc.text)
}

// setText gives doc the content text, held if the bounds allow; callers
// hold mu, and doc holds nothing yet.
func (d *documents) setText(doc *document, text string) {
	if len(text) <= maxDocBytes && d.held+len(text) <= maxHeldBytes {
		doc.text, doc.held = text, true
		d.held += len(text)
		return
	}
	doc.size, doc.sum, doc.known = len(text), sumString(text), true
}

// sumString is the SHA-256 of s, hashed in chunks: converting a 50 MB
// string at once would copy all of it.
func sumString(s string) [sha256.Size]byte {
	h := sha256.New()
	for len(s) > 0 {
		n := min(len(s), 64<<10)
		h.Write([]byte(s[:n]))
		s = s[n:]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// freeMemory returns memory to the system after a large buffer was
// released: the runtime would keep it for minutes.
func freeMemory(freed int) {
	if freed >= freeAfterBytes {
		debug.FreeOSMemory()
	}
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
	text, known := doc.text, doc.held
	for _, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text, known = c.Text, true
		case *protocol.TextDocumentContentChangePartial:
			if !known {
				continue // a buffer not held: its content is unknown now
			}
			next, err := ApplyEdits(text, []protocol.TextEdit{{Range: c.Range, NewText: c.Text}})
			if err != nil {
				// The overlay no longer matches the editor: drop it so reads
				// fall back to disk rather than to a wrong buffer.
				freeMemory(d.drop(u))
				d.notify()
				return fmt.Errorf("didChange for %s: %v", u, err)
			}
			text = next
		}
	}
	freed := d.drop(u)
	u = own(u)
	next := &document{uri: u, version: version}
	d.docs[u] = next
	if known {
		d.setText(next, text)
	}
	d.notify()
	freeMemory(freed - len(next.text))
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

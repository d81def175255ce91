package lspserver

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
)

// E9, #12 item 5: the document store is bounded. A buffer over the file
// limit is tracked by version, size and hash, not held; so is one that
// would take the text held over maxHeldBytes; closing frees its share.
// Before, every buffer was held whole, whatever its size or number.
func TestDocuments_E9_BoundedStore(t *testing.T) {
	d := newDocuments()
	big := strings.Repeat("x", maxDocBytes+1)
	d.open("file:///big", 1, big)
	doc, ok := d.get("file:///big")
	if !ok || doc.held || doc.text != "" || !doc.known || doc.size != len(big) {
		t.Fatalf("a buffer over the limit: held %v, %d bytes of text, known %v, size %d", doc.held, len(doc.text), doc.known, doc.size)
	}
	if d.held != 0 {
		t.Errorf("held %d bytes for a buffer not held", d.held)
	}

	chunk := strings.Repeat("y", maxDocBytes)
	var uris []uri.URI
	for i := range maxHeldBytes/maxDocBytes + 2 {
		u := uri.URI("file:///f" + string(rune('a'+i)))
		uris = append(uris, u)
		d.open(u, 1, chunk)
	}
	if d.held > maxHeldBytes {
		t.Errorf("the store holds %d bytes, over %d", d.held, maxHeldBytes)
	}
	last, _ := d.get(uris[len(uris)-1])
	if last.held || !last.known {
		t.Errorf("the buffer past the total bound: held %v known %v", last.held, last.known)
	}
	for _, u := range uris {
		d.close(u)
	}
	d.close("file:///big")
	if d.held != 0 || len(d.docs) != 0 {
		t.Errorf("after closing everything: %d bytes held, %d documents", d.held, len(d.docs))
	}
}

// E9: an incremental change to a buffer not held makes its content
// unknown (it can no longer be read through the disk); a change with the
// whole text brings it back, held when it fits.
func TestDocuments_E9_ChangesToBufferNotHeld(t *testing.T) {
	d := newDocuments()
	d.open("file:///big", 1, strings.Repeat("x", maxDocBytes+1))
	partial := &protocol.TextDocumentContentChangePartial{Range: protocol.Range{}, Text: "y"}
	if err := d.change("file:///big", 2, []protocol.TextDocumentContentChangeEvent{partial}); err != nil {
		t.Fatal(err)
	}
	if doc, _ := d.get("file:///big"); doc.known || doc.held || doc.version != 2 {
		t.Errorf("after an incremental change: known %v held %v version %d", doc.known, doc.held, doc.version)
	}
	whole := &protocol.TextDocumentContentChangeWholeDocument{Text: "small"}
	if err := d.change("file:///big", 3, []protocol.TextDocumentContentChangeEvent{whole, partial}); err != nil {
		t.Fatal(err)
	}
	if doc, _ := d.get("file:///big"); !doc.held || doc.text != "ysmall" || d.held != len("ysmall") {
		t.Errorf("after a whole change: held %v text %q (store %d)", doc.held, doc.text, d.held)
	}
}

// E9: reading a buffer that is not held uses the disk when the disk has
// the same content (hash), and fails as too large otherwise: never a read
// of other text than the user sees.
func TestWorkspace_E9_ReadBufferNotHeld(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newServer(nil)
	s.root = dir
	root, err := sandbox.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ws := &workspace{s: s, root: root}
	u := s.uriFor("a.txt")
	for _, tc := range []struct {
		buffer string
		want   string // "" means ErrTooLarge
	}{
		{"on disk", "on disk"},
		{"unsaved edits", ""},
	} {
		s.docs.mu.Lock()
		s.docs.docs[u] = &document{uri: u, version: 1, size: len(tc.buffer), sum: sha256.Sum256([]byte(tc.buffer)), known: true}
		s.docs.mu.Unlock()
		b, err := ws.ReadFile(t.Context(), "a.txt")
		switch {
		case tc.want == "" && !errors.Is(err, sandbox.ErrTooLarge):
			t.Errorf("buffer %q: read %q, %v; want ErrTooLarge", tc.buffer, b, err)
		case tc.want != "" && string(b) != tc.want:
			t.Errorf("buffer %q: read %q, %v; want the disk", tc.buffer, b, err)
		}
	}
}

// E9, #12 item 5: the store keeps no part of the message a document came
// in: protocol.Unmarshal's strings alias the whole message, so a URI kept
// as is would keep a 50 MB didOpen alive after the buffer was dropped.
func TestDocuments_E9_KeepsNoMessageAlive(t *testing.T) {
	msg := []byte(`{"textDocument":{"uri":"file:///big.txt","languageId":"x","version":1,"text":"` + strings.Repeat("z", maxDocBytes+1) + `"}}`)
	var p protocol.DidOpenTextDocumentParams
	if err := protocol.Unmarshal(msg, &p); err != nil {
		t.Fatal(err)
	}
	d := newDocuments()
	d.open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	for u, doc := range d.docs {
		if unsafe.StringData(string(u)) == unsafe.StringData(string(p.TextDocument.URI)) ||
			unsafe.StringData(string(doc.uri)) == unsafe.StringData(string(p.TextDocument.URI)) {
			t.Errorf("the store keeps the decoded URI, and with it the whole message")
		}
	}
	if doc, _ := d.get("file:///big.txt"); doc.sum != sha256.Sum256([]byte(p.TextDocument.Text)) {
		t.Errorf("the hash of a buffer not held is wrong")
	}
}

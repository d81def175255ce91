package lspserver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"unsafe"

	"github.com/agentls/agentls/sandbox"
)

// maxFileSize bounds what a run reads from one file on disk: the tools'
// limit, so that a file they accept is always read back.
const maxFileSize = sandbox.MaxFileBytes

// workspace implements tools.Workspace: open buffers first, then the disk
// through an os.Root so containment also holds at use time.
type workspace struct {
	s    *Server
	root *sandbox.Root
}

func (w *workspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	doc, ok := w.s.docs.get(w.s.uriFor(rel))
	switch {
	case !ok:
		return w.root.ReadFile(rel, maxFileSize)
	case doc.held:
		return []byte(doc.text), nil
	}
	// A buffer too large to hold: the disk will do if it has the same
	// content; the user must never get an edit based on other text.
	if doc.known {
		if b, err := w.root.ReadFile(rel, maxFileSize); err == nil && sha256.Sum256(b) == doc.sum {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: %s is open in an editor buffer larger than agentls holds (%d bytes)", sandbox.ErrTooLarge, rel, maxDocBytes)
}

// disk reads rel from disk only, ignoring buffers. The bytes read become
// the string without a copy: the buffer is this call's own and nothing
// writes it again (issue 27 item 2: a proposal reads the disk several
// times, and each read of a 10 MiB file cost 20 MiB).
func (w *workspace) disk(rel string) (string, bool) {
	b, err := w.root.ReadFile(rel, maxFileSize)
	if err != nil {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// frozenString is the text of a change's bytes (tools.FileChange Old and
// New) without a copy. A change is handed over whole: no tool writes its
// buffers once it proposed it, and the strings are only read, so the
// proposal holds the 10 MiB file of a one-line edit once, not twice
// (issue 27 item 2).
func frozenString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Buffered reports whether the editor holds a buffer for rel: search
// reads such a file through ReadFile (the buffer wins) and every other one
// straight from the disk (issue 27 item 1).
func (w *workspace) Buffered(rel string) bool {
	_, ok := w.s.docs.get(w.s.uriFor(rel))
	return ok
}

package lspserver

import (
	"context"

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
	if doc, ok := w.s.docs.get(w.s.uriFor(rel)); ok {
		return []byte(doc.text), nil
	}
	return w.root.ReadFile(rel, maxFileSize)
}

// disk reads rel from disk only, ignoring buffers.
func (w *workspace) disk(rel string) (string, bool) {
	b, err := w.root.ReadFile(rel, maxFileSize)
	return string(b), err == nil
}

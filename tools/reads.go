package tools

import "sync"

// ReadTracker remembers, per run, the content hash of each file as the
// model last saw it (read_file, or its own applied change), so that a
// change computed from an older view is refused as stale_file (T17) rather
// than applied to text the model never read. Safe for concurrent use; a
// nil *ReadTracker tracks nothing.
type ReadTracker struct {
	mu   sync.Mutex // guards seen
	seen map[string]string
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{seen: make(map[string]string)} }

// Record notes content as what the model has seen of rel.
func (t *ReadTracker) Record(rel string, content []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[rel] = HashContent(content)
}

// Stale reports whether rel was seen with other content than current.
func (t *ReadTracker) Stale(rel string, current []byte) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	h, ok := t.seen[rel]
	return ok && h != HashContent(current)
}

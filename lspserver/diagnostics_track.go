package lspserver

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
)

// Review findings follow the code they are about (E5, issue 24 item 10).
// A finding remembers the text of its lines when it was published. When
// the file changes — typed in a buffer, or on disk while closed — the
// finding stays where those lines still are, moves with them when lines
// above were added or removed, and is withdrawn when they are gone: the
// fix landed, and a diagnostic on lines that now hold other code would
// point at the wrong thing.

// trackedDiag is one published finding and the lines it covers.
type trackedDiag struct {
	d     protocol.Diagnostic
	first int    // 0-based line of its start
	block string // the text of its lines, joined with "\n"
}

// diagnostics are the findings agentls published, by document.
type diagnostics struct {
	mu    sync.Mutex // held while publishing, so that publications keep their order
	byURI map[uri.URI][]trackedDiag
}

// newTracked is a diagnostic on the 0-based lines first..last of text.
func newTracked(text string, first, last int, d protocol.Diagnostic) trackedDiag {
	startOff, _ := offset(text, lspPosition(first, 0))
	endOff, _ := offset(text, lspPosition(last, 1<<31))
	d.Range = rangeOf(text, startOff, endOff)
	lines := strings.Split(text, "\n")
	last = min(last, len(lines)-1)
	return trackedDiag{d: d, first: first, block: strings.Join(lines[first:last+1], "\n")}
}

// replace publishes a review's diagnostics: byURI's, and empty lists for
// the documents that held earlier ones and have none now.
func (s *Server) replaceDiagnostics(ctx context.Context, byURI map[uri.URI][]trackedDiag) {
	ds := &s.diags
	ds.mu.Lock()
	defer ds.mu.Unlock()
	send := map[uri.URI][]trackedDiag{}
	for u := range ds.byURI {
		send[u] = nil // cleared unless the review has some
	}
	maps.Copy(send, byURI)
	ds.byURI = byURI
	for _, u := range slices.Sorted(maps.Keys(send)) {
		s.publishDiagnostics(ctx, u, send[u])
	}
}

// retrackDiagnostics moves or withdraws the diagnostics of u after its
// text changed, and publishes them again when any did.
func (s *Server) retrackDiagnostics(ctx context.Context, u uri.URI, text string) {
	ds := &s.diags
	ds.mu.Lock()
	defer ds.mu.Unlock()
	old := ds.byURI[u]
	if len(old) == 0 {
		return
	}
	lines := strings.Split(text, "\n")
	kept, changed := make([]trackedDiag, 0, len(old)), false
	for _, td := range old {
		first, ok := relocate(lines, td)
		switch {
		case !ok:
			changed = true
			continue
		case first != td.first:
			td = newTracked(text, first, first+strings.Count(td.block, "\n"), td.d)
			changed = true
		}
		kept = append(kept, td)
	}
	if !changed {
		return
	}
	if len(kept) == 0 {
		delete(ds.byURI, u)
	} else {
		ds.byURI[u] = kept
	}
	s.publishDiagnostics(ctx, u, kept)
}

// relocate finds td's lines in lines: where they were, else the nearest
// place that holds them; false when no place does.
func relocate(lines []string, td trackedDiag) (int, bool) {
	want := strings.Split(td.block, "\n")
	holds := func(at int) bool {
		return at >= 0 && at+len(want) <= len(lines) && slices.Equal(lines[at:at+len(want)], want)
	}
	for d := 0; d < len(lines); d++ {
		if holds(td.first - d) {
			return td.first - d, true
		}
		if d > 0 && holds(td.first+d) {
			return td.first + d, true
		}
	}
	return 0, false
}

// publishDiagnostics sends one document's diagnostics; none clears them.
func (s *Server) publishDiagnostics(ctx context.Context, u uri.URI, tds []trackedDiag) {
	params := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}
	for _, td := range tds {
		params.Diagnostics = append(params.Diagnostics, td.d)
	}
	if err := s.conn.Notify(context.WithoutCancel(ctx), "textDocument/publishDiagnostics", params); err != nil {
		s.log.Warn("publishDiagnostics failed", slog.String("err", err.Error()))
	}
}

// documentChanged re-tracks the diagnostics of a document whose text
// changed: the buffer's when it is open, else the disk's.
func (s *Server) documentChanged(ctx context.Context, u uri.URI) {
	s.diags.mu.Lock()
	tracked := len(s.diags.byURI[u]) > 0
	s.diags.mu.Unlock()
	if !tracked {
		return
	}
	if doc, ok := s.docs.get(u); ok {
		s.retrackDiagnostics(ctx, u, doc.text)
		return
	}
	text := ""
	if rel, err := s.resolveTarget(string(u)); err == nil {
		text = s.diskText(rel)
	}
	s.retrackDiagnostics(ctx, u, text) // gone or unreadable: "" withdraws them
}

// allChanged re-tracks every document that holds diagnostics.
func (s *Server) allChanged(ctx context.Context) {
	s.diags.mu.Lock()
	us := slices.Collect(maps.Keys(s.diags.byURI))
	s.diags.mu.Unlock()
	for _, u := range us {
		s.documentChanged(ctx, u)
	}
}

// diskText is rel's content on disk, "" when it cannot be read.
func (s *Server) diskText(rel string) string {
	root, err := sandbox.OpenRoot(s.root)
	if err != nil {
		return ""
	}
	defer root.Close()
	b, err := root.ReadFile(rel, maxFileSize)
	if err != nil {
		return ""
	}
	return string(b)
}

func (s *Server) isOpen(u uri.URI) bool {
	_, ok := s.docs.get(u)
	return ok
}

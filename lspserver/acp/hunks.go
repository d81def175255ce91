package acp

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// hunk is one contiguous line-level change of a proposal: old[start:end]
// becomes repl. The split is the LSP proposer's (lspserver's
// computeHunks, which this package may not import): line edits of
// go-udiff, adjacent ones merged.
type hunk struct {
	start, end int
	repl       string
	lines      string // "3-5" in the old text, 1-based
}

// computeHunks splits the change from old to new into line hunks.
func computeHunks(old, new string) []hunk {
	var hs []hunk
	for _, e := range udiff.Lines(old, new) {
		if n := len(hs); n > 0 && hs[n-1].end == e.Start {
			hs[n-1].end = e.End
			hs[n-1].repl += e.New
			continue
		}
		hs = append(hs, hunk{start: e.Start, end: e.End, repl: e.New})
	}
	for i := range hs {
		first := strings.Count(old[:hs[i].start], "\n") + 1
		last := first + strings.Count(old[hs[i].start:hs[i].end], "\n") - 1
		switch {
		case last < first:
			hs[i].lines = fmt.Sprintf("%d (insert)", first)
		case last == first:
			hs[i].lines = fmt.Sprint(first)
		default:
			hs[i].lines = fmt.Sprintf("%d-%d", first, last)
		}
	}
	return hs
}

// applyHunks is old with the hunks take says yes to.
func applyHunks(old string, hs []hunk, take func(i int) bool) string {
	var b strings.Builder
	prev := 0
	for i, h := range hs {
		b.WriteString(old[prev:h.start])
		if take(i) {
			b.WriteString(h.repl)
		} else {
			b.WriteString(old[h.start:h.end])
		}
		prev = h.end
	}
	b.WriteString(old[prev:])
	return b.String()
}

// firstLine is where a hunk starts, 1-based, for its location.
func (h hunk) firstLine(old string) int {
	return strings.Count(old[:h.start], "\n") + 1
}

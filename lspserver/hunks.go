package lspserver

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// hunk is one contiguous line-level change of a proposal: old[start:end]
// becomes repl.
type hunk struct {
	start, end int
	repl       string
	lines      string // "3-5" in the old text, 1-based, for labels
}

// computeHunks splits the change from old to new into line hunks; adjacent
// line edits merge into one hunk.
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
		if last < first {
			hs[i].lines = fmt.Sprintf("%d (insert)", first)
		} else if last == first {
			hs[i].lines = fmt.Sprint(first)
		} else {
			hs[i].lines = fmt.Sprintf("%d-%d", first, last)
		}
	}
	return hs
}

// landed works out which hunks of a proposal against old are present in
// got. ok is false when got is not old with some subset of the hunks applied
// (the user or another tool changed the text too).
func landed(old, got string, hs []hunk) (applied []bool, ok bool) {
	applied = make([]bool, len(hs))
	pos, prev := 0, 0
	for i, h := range hs {
		seg := old[prev:h.start]
		if !strings.HasPrefix(got[pos:], seg) {
			return applied, false
		}
		pos += len(seg)
		nextEnd := len(old)
		if i+1 < len(hs) {
			nextEnd = hs[i+1].start
		}
		next := old[h.end:nextEnd]
		orig := old[h.start:h.end]
		switch {
		case strings.HasPrefix(got[pos:], h.repl) && strings.HasPrefix(got[pos+len(h.repl):], next):
			applied[i] = true
			pos += len(h.repl)
		case strings.HasPrefix(got[pos:], orig) && strings.HasPrefix(got[pos+len(orig):], next):
			pos += len(orig)
		default:
			return applied, false
		}
		prev = h.end
	}
	return applied, got[pos:] == old[prev:]
}

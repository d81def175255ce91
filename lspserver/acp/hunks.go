package acp

import (
	"strings"

	"github.com/agentls/agentls/tools"
)

// The hunk split is the one every front-end uses (tools.Hunks): line
// edits of go-udiff, adjacent ones merged, the shared head and tail left
// out of the diff.

// applyHunks is old with the hunks take says yes to.
func applyHunks(old string, hs []tools.Hunk, take func(i int) bool) string {
	var b strings.Builder
	prev := 0
	for i, h := range hs {
		b.WriteString(old[prev:h.Start])
		if take(i) {
			b.WriteString(h.Repl)
		} else {
			b.WriteString(old[h.Start:h.End])
		}
		prev = h.End
	}
	b.WriteString(old[prev:])
	return b.String()
}

// hunkLine is where a hunk starts, 1-based, for its location.
func hunkLine(h tools.Hunk, old string) int {
	return strings.Count(old[:h.Start], "\n") + 1
}

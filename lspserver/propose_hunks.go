package lspserver

import (
	"strings"

	"github.com/agentls/agentls/tools"
)

// hunk is one line-level change of a proposal (tools.Hunks).
type hunk = tools.Hunk

// computeHunks splits a change into the hunks the editor shows.
func computeHunks(old, new string) []hunk { return tools.Hunks(old, new) }

// landed works out which hunks of a proposal against old are present in
// got. ok is false when got is not old with some subset of the hunks applied
// (the user or another tool changed the text too). Both readings of each
// hunk are tried (a refused deletion looks like an applied one with an
// empty replacement), with memoisation so the search stays linear-ish.
func landed(old, got string, hs []hunk) (applied []bool, ok bool) {
	applied = make([]bool, len(hs))
	type state struct{ i, pos int }
	failed := map[state]bool{}
	var match func(i, pos, prev int) bool
	match = func(i, pos, prev int) bool {
		if i == len(hs) {
			return got[pos:] == old[prev:]
		}
		if failed[state{i, pos}] {
			return false
		}
		h := hs[i]
		if seg := old[prev:h.Start]; strings.HasPrefix(got[pos:], seg) {
			p := pos + len(seg)
			if strings.HasPrefix(got[p:], h.Repl) && match(i+1, p+len(h.Repl), h.End) {
				applied[i] = true
				return true
			}
			if o := old[h.Start:h.End]; strings.HasPrefix(got[p:], o) && match(i+1, p+len(o), h.End) {
				applied[i] = false
				return true
			}
		}
		failed[state{i, pos}] = true
		return false
	}
	ok = match(0, 0, 0)
	return applied, ok
}

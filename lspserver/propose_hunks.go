package lspserver

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// hunk is one contiguous line-level change of a proposal: old[start:end]
// becomes repl.
type hunk struct {
	start, end int
	repl       string
	lines      string // "3-5" in the old text, 1-based, for labels
	what       string // what it does, for labels: `change to "…"`, `delete "…"`
}

// computeHunks splits the change from old to new into line hunks; adjacent
// line edits merge into one hunk. The lines both share at the head and the
// tail are left out of the diff (S4): a one-line change in a big file
// costs its own lines.
func computeHunks(old, new string) []hunk {
	head, tail := tools.CommonLines(old, new)
	var hs []hunk
	for _, e := range udiff.Lines(old[head:len(old)-tail], new[head:len(new)-tail]) {
		e.Start, e.End = e.Start+head, e.End+head
		if n := len(hs); n > 0 && hs[n-1].end == e.Start {
			hs[n-1].end = e.End
			hs[n-1].repl += e.New
			continue
		}
		hs = append(hs, hunk{start: e.Start, end: e.End, repl: e.New})
	}
	line, at := 1, 0 // the line number of old[at]
	for i := range hs {
		line += strings.Count(old[at:hs[i].start], "\n")
		at = hs[i].start
		first := line
		last := first + strings.Count(old[hs[i].start:hs[i].end], "\n") - 1
		if last < first {
			hs[i].lines = fmt.Sprintf("%d (insert)", first)
		} else if last == first {
			hs[i].lines = fmt.Sprint(first)
		} else {
			hs[i].lines = fmt.Sprintf("%d-%d", first, last)
		}
		hs[i].what = hunkWhat(old[hs[i].start:hs[i].end], hs[i].repl)
	}
	return hs
}

// hunkWhat says in a few words what a hunk does, quoting the first
// non-blank line it adds (or, for a deletion, removes), control bytes made
// visible and cut to a label's length (E18).
func hunkWhat(old, repl string) string {
	switch {
	case old == "":
		return "insert " + quoteLine(repl)
	case repl == "":
		return "delete " + quoteLine(old)
	}
	return "change to " + quoteLine(repl)
}

func quoteLine(text string) string {
	line := ""
	for l := range strings.Lines(text) {
		if line = strings.TrimSpace(l); line != "" {
			break
		}
	}
	if line == "" {
		return "blank lines"
	}
	const max = 48
	if r := []rune(line); len(r) > max {
		line = string(r[:max]) + "…"
	}
	return "“" + sandbox.Visible(line) + "”"
}

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
		if seg := old[prev:h.start]; strings.HasPrefix(got[pos:], seg) {
			p := pos + len(seg)
			if strings.HasPrefix(got[p:], h.repl) && match(i+1, p+len(h.repl), h.end) {
				applied[i] = true
				return true
			}
			if o := old[h.start:h.end]; strings.HasPrefix(got[p:], o) && match(i+1, p+len(o), h.end) {
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

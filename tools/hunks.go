package tools

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/sandbox"
)

// Hunk is one contiguous line-level change of a proposal: old[Start:End]
// becomes Repl. Every front-end shows and decides a change hunk by hunk
// (E6): the LSP proposer as annotated edits, the ACP one as one
// permission request each.
type Hunk struct {
	Start, End int
	Repl       string
	Lines      string // "3-5" in the old text, 1-based, for labels
	What       string // what it does, for labels: `change to "…"`, `delete "…"`
}

// Hunks splits the change from old to new into line hunks; adjacent
// line edits merge into one hunk. The lines both share at the head and the
// tail are left out of the diff (S4): a one-line change in a big file
// costs its own lines.
func Hunks(old, new string) []Hunk {
	head, tail := CommonLines(old, new)
	var hs []Hunk
	for _, e := range udiff.Lines(old[head:len(old)-tail], new[head:len(new)-tail]) {
		e.Start, e.End = e.Start+head, e.End+head
		if n := len(hs); n > 0 && hs[n-1].End == e.Start {
			hs[n-1].End = e.End
			hs[n-1].Repl += e.New
			continue
		}
		hs = append(hs, Hunk{Start: e.Start, End: e.End, Repl: e.New})
	}
	line, at := 1, 0 // the line number of old[at]
	for i := range hs {
		line += strings.Count(old[at:hs[i].Start], "\n")
		at = hs[i].Start
		first := line
		last := first + strings.Count(old[hs[i].Start:hs[i].End], "\n") - 1
		if last < first {
			hs[i].Lines = fmt.Sprintf("%d (insert)", first)
		} else if last == first {
			hs[i].Lines = fmt.Sprint(first)
		} else {
			hs[i].Lines = fmt.Sprintf("%d-%d", first, last)
		}
		hs[i].What = hunkWhat(old[hs[i].Start:hs[i].End], hs[i].Repl)
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

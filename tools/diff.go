package tools

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Diffs of big files (S4, issue 27 item 2). A one-line change in a 10 MiB
// file used to be diffed line by line over the whole file — each side
// split into 150,000 strings — once for the hunks and once more for each
// preview. The common head and tail are cut first, at line boundaries, so
// the diff costs the lines that changed.

// CommonLines returns the lengths of the longest head and tail that old
// and new share, each ending (head) or starting (tail) at a line boundary,
// and never overlapping: old[:head] == new[:head] and
// old[len(old)-tail:] == new[len(new)-tail:].
func CommonLines(old, new string) (head, tail int) {
	n := min(len(old), len(new))
	for head < n && old[head] == new[head] {
		head++
	}
	if head < len(old) || head < len(new) {
		head = strings.LastIndexByte(old[:head], '\n') + 1 // back to a line start
	}
	n -= head
	for tail < n && old[len(old)-1-tail] == new[len(new)-1-tail] {
		tail++
	}
	for tail > 0 && !(lineStart(old, len(old)-tail, head) && lineStart(new, len(new)-tail, head)) {
		tail--
	}
	return head, tail
}

// lineStart reports whether s[i:] starts a line (or i is where the head
// ends).
func lineStart(s string, i, head int) bool { return i == head || s[i-1] == '\n' }

// UnifiedDiff is the unified diff of old and new, with the line numbers
// of the whole files, computed on the part that differs and three lines
// of context on each side.
func UnifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	head, tail := CommonLines(old, new)
	head = backLines(old, head, 3)
	tail = len(old) - forwardLines(old, len(old)-tail, 3)
	d := udiff.Unified("a/"+name, "b/"+name, old[head:len(old)-tail], new[head:len(new)-tail])
	return shiftHunks(d, strings.Count(old[:head], "\n"))
}

// UnifiedDiffAt is the UnifiedDiff of a window of a file: old[from:to]
// and mid, the text that replaces it, with hunk headers counting lines
// from old's start. from must be a line start. It shows an edit of a big
// file without building the whole new text (issue 27).
func UnifiedDiffAt(name, old string, from, to int, mid string) string {
	return shiftHunks(UnifiedDiff(name, old[from:to], mid), strings.Count(old[:from], "\n"))
}

// shiftHunks adds skipped to the line numbers of every hunk header of d.
func shiftHunks(d string, skipped int) string {
	if skipped == 0 {
		return d
	}
	var b strings.Builder
	for line := range strings.Lines(d) {
		b.WriteString(shiftHunkHeader(line, skipped))
	}
	return b.String()
}

// LinesAround widens s[from:to] to the whole lines it touches and n more
// lines each way, as a diff of them needs for its context.
func LinesAround(s string, from, to, n int) (int, int) {
	from = strings.LastIndexByte(s[:from], '\n') + 1
	if i := strings.IndexByte(s[to:], '\n'); i >= 0 {
		to += i + 1
	} else {
		to = len(s)
	}
	return backLines(s, from, n), forwardLines(s, to, n)
}

// backLines moves i, a line start in s, back by n lines (or to 0).
func backLines(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i-1], '\n') + 1
	}
	return i
}

// forwardLines moves i, a line start in s, on by n lines (or to the end).
func forwardLines(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		i += j + 1
	}
	return i
}

// shiftHunkHeader adds skipped to both line numbers of a hunk header
// ("@@ -a,b +c,d @@"); other lines stay as they are.
func shiftHunkHeader(line string, skipped int) string {
	if !strings.HasPrefix(line, "@@ -") {
		return line
	}
	var a, c int
	var b, d string
	rest := strings.TrimPrefix(line, "@@ -")
	oldR, newR, ok := strings.Cut(strings.SplitN(rest, " @@", 2)[0], " +")
	if !ok {
		return line
	}
	a, b = splitRange(oldR)
	c, d = splitRange(newR)
	tailText := ""
	if i := strings.Index(rest, " @@"); i >= 0 {
		tailText = rest[i:]
	}
	return fmt.Sprintf("@@ -%d%s +%d%s", a+skipped, b, c+skipped, d) + tailText
}

// splitRange reads "12,3" as 12 and ",3", "12" as 12 and "".
func splitRange(r string) (int, string) {
	num, count, _ := strings.Cut(r, ",")
	var n int
	fmt.Sscanf(num, "%d", &n)
	if count != "" {
		count = "," + count
	}
	return n, count
}

package tools

import (
	"fmt"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// S4 (issue 27 item 2): the diff of a one-line change in a large file is
// the same as the whole-file diff, computed on the lines around the change.
func TestUnifiedDiff_S4_SameAsWholeFile(t *testing.T) {
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	big := b.String()
	for _, tt := range []struct{ name, old, new string }{
		{"one line in the middle", big, strings.Replace(big, "line 10000\n", "line TEN THOUSAND\n", 1)},
		{"first line", big, strings.Replace(big, "line 0\n", "line zero\n", 1)},
		{"last line", big, strings.Replace(big, "line 19999\n", "the end\n", 1)},
		{"insert at the start", "b\nc\n", "a\nb\nc\n"},
		{"append", "a\nb\n", "a\nb\nc\n"},
		{"no final newline", "a\nb", "a\nc"},
		{"new file", "", "a\nb\n"},
		{"emptied", "a\nb\n", ""},
		{"same", "a\n", "a\n"},
		{"line grows at its end", "ab\ncd\n", "abX\ncd\n"},
	} {
		want := udiff.Unified("a/f", "b/f", tt.old, tt.new)
		if got := UnifiedDiff("f", tt.old, tt.new); got != want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, clipDiff(got), clipDiff(want))
		}
	}
}

func clipDiff(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// FuzzUnifiedDiff_S4: whatever the two texts, every hunk of the diff
// reads, at the line numbers its header gives, the old file's lines
// (context and removed) and the new file's lines (context and added).
func FuzzUnifiedDiff_S4(f *testing.F) {
	f.Add("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n")
	f.Add("", "x")
	f.Add("a\na\na\n", "a\na\n")
	f.Add("same\n", "same\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if len(old) > 4000 || len(new) > 4000 {
			return
		}
		checkHunks(t, old, new, UnifiedDiff("f", old, new))
	})
}

// checkHunks checks each hunk of d against old and new.
func checkHunks(t *testing.T, old, new, d string) {
	t.Helper()
	oldLines, newLines := lines(old), lines(new)
	var o, n int    // the next old and new line the hunk must read (0-based)
	inHunk := false // "--- a/f" and "+++ b/f" head the diff; inside a hunk "+++" is an added "++"
	for line := range strings.Lines(d) {
		switch {
		case strings.HasPrefix(line, "@@ -"):
			inHunk = true
			var a, c int
			a, _ = splitRange(strings.Fields(line)[1][1:])
			c, _ = splitRange(strings.Fields(line)[2][1:])
			o, n = max(a-1, 0), max(c-1, 0)
			if a == 0 {
				o = 0
			}
		case !inHunk, strings.HasPrefix(line, `\`):
		case strings.HasPrefix(line, " "):
			expect(t, oldLines, o, line[1:], "old")
			expect(t, newLines, n, line[1:], "new")
			o, n = o+1, n+1
		case strings.HasPrefix(line, "-"):
			expect(t, oldLines, o, line[1:], "old")
			o++
		case strings.HasPrefix(line, "+"):
			expect(t, newLines, n, line[1:], "new")
			n++
		}
	}
}

func lines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		out = append(out, strings.TrimSuffix(l, "\n"))
	}
	return out
}

func expect(t *testing.T, ls []string, i int, got, side string) {
	t.Helper()
	got = strings.TrimSuffix(got, "\n")
	if i >= len(ls) || ls[i] != got {
		t.Fatalf("%s line %d is %q in the diff, not the file's", side, i+1, got)
	}
}

package lspserver

import "testing"

// E22: a checks problem on a line of the proposed text is shown on the
// line of the current text it comes from.
func TestProposeChecks_E22_OldLine(t *testing.T) {
	old := "a\nb\nc\nd\ne\n"
	proposed := "a\nX\nY\nc\nd\ne\nZ\n" // b replaced by X, Y; Z appended
	hs := computeHunks(old, proposed)
	for _, c := range []struct{ newLine, want int }{
		{0, 0}, // a
		{1, 1}, // X: in the hunk, at b's line
		{2, 1}, // Y: likewise
		{3, 2}, // c
		{5, 4}, // e
		{6, 4}, // Z: appended, shown on the last line
	} {
		if got := oldLine(old, proposed, hs, c.newLine); got != c.want {
			t.Errorf("proposed line %d → %d, want %d", c.newLine, got, c.want)
		}
	}
	if got := oldLine("", "new\nfile\n", computeHunks("", "new\nfile\n"), 1); got != 0 {
		t.Errorf("new file: %d", got)
	}
}

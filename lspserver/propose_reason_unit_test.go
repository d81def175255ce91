package lspserver

import (
	"strings"
	"testing"
)

// Issue 28, bad input: answers about hunks that do not exist are
// ignored (no panic), a text equal to the proposal is no change, and the
// user's words are trimmed and bounded.
func TestHunkReply_Issue28_BadAnswers(t *testing.T) {
	hs := computeHunks("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n")
	same, other := hs[0].Repl, "x\n"
	r := &HunkReply{Hunks: []HunkAnswer{
		{Index: -1, Text: &other}, {Index: 7, Reason: "nope"}, {Index: 0, Text: &same},
		{Index: 1, Reason: "  " + strings.Repeat("why ", 2000) + "  "},
	}}
	got, changed := r.edited(hs)
	if len(changed) != 0 || got[0].Repl != hs[0].Repl || got[1].Repl != hs[1].Repl {
		t.Errorf("edited = %+v, %v; want no change", got, changed)
	}
	if s := r.reasonFor(1); !strings.HasPrefix(s, "why why") || len(s) > maxUserText+20 {
		t.Errorf("reasonFor(1) = %d bytes %.20q…, want trimmed and bounded", len(s), s)
	}
	if s := r.reasonFor(0); s != "" {
		t.Errorf("reasonFor(0) = %q, want none", s)
	}
	var none *HunkReply
	if hs2, c := none.edited(hs); len(c) != 0 || len(hs2) != len(hs) || none.userReason(hs) != "" {
		t.Error("a reply without answers changes something")
	}
}

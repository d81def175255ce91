package lspserver

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func lp(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func lr(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: lp(l1, c1), End: lp(l2, c2)}
}

// E9: LSP positions count UTF-16 code units; lines end in \n, \r\n or \r.
func TestPosition_E9_Offset(t *testing.T) {
	const text = "a😀b世\r\nδ\n\rx\r\n"
	// bytes: a=0 😀=1..4 b=5 世=6..8 \r=9 \n=10 | δ=11..12 \n=13 | \r=14 | x=15 \r=16 \n=17 | (18 = end)
	cases := []struct {
		name    string
		pos     protocol.Position
		want    int
		wantErr bool
	}{
		{"start", lp(0, 0), 0, false},
		{"after a", lp(0, 1), 1, false},
		{"after the surrogate pair", lp(0, 3), 5, false},
		{"inside the surrogate pair goes past it", lp(0, 2), 5, false},
		{"after b", lp(0, 4), 6, false},
		{"end of line 0", lp(0, 5), 9, false},
		{"char past the end of line 0 clamps before CRLF", lp(0, 99), 9, false},
		{"line 1", lp(1, 0), 11, false},
		{"after δ", lp(1, 1), 13, false},
		{"line 1 clamps", lp(1, 7), 13, false},
		{"empty line 2 ended by a lone CR", lp(2, 0), 14, false},
		{"line 2 clamps before CR", lp(2, 3), 14, false},
		{"line 3", lp(3, 1), 16, false},
		{"line 4 is the empty last line", lp(4, 0), 18, false},
		{"line 4 clamps at the end", lp(4, 9), 18, false},
		{"line 5 is past the end", lp(5, 0), 0, true},
		{"far past the end", lp(1<<30, 0), 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := offset(text, tc.pos)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("offset(%v) = %d, want an error", tc.pos, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("offset(%v) = %d, %v; want %d", tc.pos, got, err, tc.want)
			}
		})
	}
}

// E9: position is the inverse of offset at every rune boundary that is a
// real position (not between the \r and \n of a CRLF).
func TestPosition_E9_RoundTrip(t *testing.T) {
	texts := []string{
		"",
		"x",
		"hello\nworld\n",
		"a😀b世界c\r\nδ中\tz\r\nlast",
		"\r\n\r\n",
		"\n\n\n",
		"a\rb\rc",
		"🎉🎉\n🎉",
		"mixed\r\nendings\nand\rmore",
	}
	for _, text := range texts {
		for off := 0; off <= len(text); off++ {
			if off < len(text) && !utf8.RuneStart(text[off]) {
				continue
			}
			if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
				continue
			}
			p := position(text, off)
			got, err := offset(text, p)
			if err != nil || got != off {
				t.Errorf("%q: offset(position(%d) = %v) = %d, %v", text, off, p, got, err)
			}
		}
	}
}

func TestPosition_E9_PositionUTF16(t *testing.T) {
	text := "😀x\r\n世𝄞y"
	cases := []struct {
		off  int
		want protocol.Position
	}{
		{0, lp(0, 0)},
		{4, lp(0, 2)},
		{5, lp(0, 3)},
		{7, lp(1, 0)},
		{10, lp(1, 1)},
		{14, lp(1, 3)},
		{15, lp(1, 4)},
		{99, lp(1, 4)}, // past the end: the end
	}
	for _, tc := range cases {
		if got := position(text, tc.off); got != tc.want {
			t.Errorf("position(%d) = %v, want %v", tc.off, got, tc.want)
		}
	}
}

func TestPosition_E9_ApplyEdits(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		edits   []protocol.TextEdit
		want    string
		wantErr bool
	}{
		{"none", "abc", nil, "abc", false},
		{"insert", "abc", []protocol.TextEdit{{Range: lr(0, 1, 0, 1), NewText: "X"}}, "aXbc", false},
		{"replace after emoji", "😀ab", []protocol.TextEdit{{Range: lr(0, 2, 0, 3), NewText: "A"}}, "😀Ab", false},
		{"any order", "one\ntwo\nthree", []protocol.TextEdit{
			{Range: lr(2, 0, 2, 5), NewText: "3"},
			{Range: lr(0, 0, 0, 3), NewText: "1"},
		}, "1\ntwo\n3", false},
		{"two inserts at one point keep their order", "ab", []protocol.TextEdit{
			{Range: lr(0, 1, 0, 1), NewText: "1"},
			{Range: lr(0, 1, 0, 1), NewText: "2"},
		}, "a12b", false},
		{"delete across CRLF lines", "a\r\nb\r\nc", []protocol.TextEdit{{Range: lr(0, 1, 2, 0), NewText: ""}}, "ac", false},
		{"char past end clamps", "ab\ncd", []protocol.TextEdit{{Range: lr(0, 50, 0, 60), NewText: "!"}}, "ab!\ncd", false},
		{"line past end", "ab", []protocol.TextEdit{{Range: lr(3, 0, 3, 0), NewText: "!"}}, "", true},
		{"end before start", "abc", []protocol.TextEdit{{Range: lr(0, 2, 0, 1), NewText: "!"}}, "", true},
		{"overlap", "abcdef", []protocol.TextEdit{
			{Range: lr(0, 0, 0, 3), NewText: "x"},
			{Range: lr(0, 2, 0, 4), NewText: "y"},
		}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyEdits(tc.text, tc.edits)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ApplyEdits = %q, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ApplyEdits = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// E9: a change with a version that does not grow is refused and leaves the
// buffer alone; a change that does not apply drops the overlay, so reads
// fall back to the disk rather than to a wrong buffer.
func TestDocuments_E9_Versions(t *testing.T) {
	d := newDocuments()
	u := uri.File("/ws/a.txt")
	d.open(u, 3, "abc")
	partial := func(r protocol.Range, text string) []protocol.TextDocumentContentChangeEvent {
		return []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: r, Text: text}}
	}
	if err := d.change(u, 4, partial(lr(0, 3, 0, 3), "d")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int32{4, 2} {
		if err := d.change(u, v, partial(lr(0, 0, 0, 0), "X")); err == nil {
			t.Errorf("version %d after 4 was accepted", v)
		}
	}
	if doc, _ := d.get(u); doc.text != "abcd" || doc.version != 4 {
		t.Errorf("buffer %q v%d, want \"abcd\" v4", doc.text, doc.version)
	}
	if err := d.change(uri.File("/ws/closed.txt"), 1, partial(lr(0, 0, 0, 0), "X")); err == nil {
		t.Error("a change to a document that is not open was accepted")
	}
	if err := d.change(u, 5, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "new"}}); err != nil {
		t.Fatal(err)
	}
	if doc, _ := d.get(u); doc.text != "new" {
		t.Errorf("full change: %q", doc.text)
	}
	if err := d.change(u, 6, partial(lr(9, 0, 9, 0), "X")); err == nil {
		t.Error("a change past the end was accepted")
	}
	if _, ok := d.get(u); ok {
		t.Error("the overlay survived a change that does not apply")
	}
}

// FuzzApplyEdits: ApplyEdits never panics, and when it succeeds with one
// edit at rune boundaries, the result is the splice of the text.
func FuzzApplyEdits(f *testing.F) {
	f.Add("hello\nworld", uint32(0), uint32(1), uint32(1), uint32(2), "X", uint32(0), uint32(0), uint32(0), uint32(0), "")
	f.Add("a😀b\r\nc", uint32(0), uint32(2), uint32(1), uint32(0), "世", uint32(1), uint32(1), uint32(1), uint32(1), "!")
	f.Add("\r\r\n\n", uint32(1), uint32(0), uint32(2), uint32(0), "", uint32(3), uint32(0), uint32(3), uint32(5), "z")
	f.Add("\xff\xfe", uint32(0), uint32(1), uint32(0), uint32(2), "y", uint32(0), uint32(0), uint32(0), uint32(0), "x")
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 uint32, t1 string, l3, c3, l4, c4 uint32, t2 string) {
		e1 := protocol.TextEdit{Range: lr(l1, c1, l2, c2), NewText: t1}
		e2 := protocol.TextEdit{Range: lr(l3, c3, l4, c4), NewText: t2}
		_, _ = ApplyEdits(text, []protocol.TextEdit{e1, e2})
		got, err := ApplyEdits(text, []protocol.TextEdit{e1})
		if err != nil || !utf8.ValidString(text) {
			return
		}
		s, _ := offset(text, e1.Range.Start)
		e, _ := offset(text, e1.Range.End)
		if want := text[:s] + t1 + text[e:]; got != want {
			t.Fatalf("ApplyEdits(%q, %v) = %q, want %q", text, e1, got, want)
		}
		// position/offset agree on the offsets ApplyEdits used.
		for _, off := range []int{s, e} {
			if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
				continue
			}
			if back, err := offset(text, position(text, off)); err != nil || back != off {
				t.Fatalf("%q: offset(position(%d)) = %d, %v", text, off, back, err)
			}
		}
	})
}

// S4 (issue 27 item 2): applying a one-line edit to a large text builds
// the result in one buffer of its size, not by doubling and copying.
func TestApplyEdits_S4_OneBuffer(t *testing.T) {
	text := strings.Repeat("// a line of a large generated file\n", 100_000)
	edits := []protocol.TextEdit{{Range: protocol.Range{Start: lspPosition(5000, 3), End: lspPosition(5000, 4)}, NewText: "A"}}
	var got string
	allocs := testing.AllocsPerRun(5, func() { got, _ = ApplyEdits(text, edits) })
	if allocs > 2 {
		t.Errorf("%v allocations for one edit, want at most 2 (the spans and the result)", allocs)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, _ = ApplyEdits(text, edits)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(text))*5/4 {
		t.Errorf("%d bytes allocated for a %d-byte text, want about its size", n, len(text))
	}
	if len(got) != len(text) || got[5000*36+3] != 'A' {
		t.Errorf("the edit did not land where it should")
	}
}

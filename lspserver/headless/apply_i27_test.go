package headless

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/tools"
)

// Issue 27 item 2: the preview of an edit is computed on the lines around
// it, and it is the same diff, line numbers included, as the diff of the
// whole file and the whole new text.
func TestPreviewDiff_Issue27_SameAsWholeFile(t *testing.T) {
	rnd := rand.New(rand.NewPCG(27, 2))
	for n := range 2000 {
		var lines []string
		for i := range rnd.IntN(40) {
			l := fmt.Sprintf("line %d", i%7) // repeated lines, as real files have
			if rnd.IntN(5) == 0 {
				l += "\r"
			}
			lines = append(lines, l)
		}
		old := strings.Join(lines, "\n")
		if rnd.IntN(2) == 0 && old != "" {
			old += "\n"
		}
		var edits []protocol.TextEdit
		for line := uint32(rnd.IntN(12)); int(line) <= len(lines); line += uint32(1 + rnd.IntN(12)) {
			end := line + uint32(rnd.IntN(3))
			e := protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: line, Character: uint32(rnd.IntN(3))},
				End: protocol.Position{Line: end, Character: uint32(rnd.IntN(9))}}}
			if int(end) >= len(lines) {
				e.Range.End = e.Range.Start
			}
			e.NewText = []string{"", "x", "new line\n", "a\nb\n", "line 3\n"}[rnd.IntN(5)]
			edits = append(edits, e)
			line = e.Range.End.Line
		}
		want, err := lspserver.ApplyEdits(old, edits)
		if err != nil {
			continue
		}
		spans, _, err := lspserver.EditSpans(old, edits)
		if err != nil {
			t.Fatalf("case %d: EditSpans: %v, ApplyEdits took them", n, err)
		}
		if got, whole := previewDiff("f.txt", old, spans), tools.UnifiedDiff("f.txt", old, want); got != whole {
			t.Fatalf("case %d: old %q, edits %+v\npreview:\n%s\nwhole-file diff:\n%s", n, old, edits, got, whole)
		}
	}
}

// Issue 27 item 2, T17: the text written is built from the disk after the
// questions, and only when the disk still holds the text shown: a change
// of one byte, a longer or a shorter file, a removed one, or a file
// created meanwhile where there was none, is stale.
func TestRebuild_Issue27_StaleUnlessTheSameText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	old := strings.Repeat("0123456789abcdef\n", 10_000) // more than one read buffer
	edits := []protocol.TextEdit{
		{Range: protocol.Range{Start: protocol.Position{Line: 2, Character: 3}, End: protocol.Position{Line: 2, Character: 5}}, NewText: "XY\nZ"},
		{Range: protocol.Range{Start: protocol.Position{Line: 9000}, End: protocol.Position{Line: 9001}}, NewText: ""},
		{Range: protocol.Range{Start: protocol.Position{Line: 10_000}, End: protocol.Position{Line: 10_000}}, NewText: "tail\n"},
	}
	want, err := lspserver.ApplyEdits(old, edits)
	if err != nil {
		t.Fatal(err)
	}
	spans, size, err := lspserver.EditSpans(old, edits)
	if err != nil || size != len(want) {
		t.Fatalf("EditSpans: size %d (want %d), %v", size, len(want), err)
	}
	sum := sha256.Sum256([]byte(old))
	for _, c := range []struct {
		name string
		disk *string
		same bool
	}{
		{"unchanged", &old, true},
		{"one byte changed", ptr(old[:5000] + "X" + old[5001:]), false},
		{"one byte more", ptr(old + "\n"), false},
		{"one byte less", ptr(old[:len(old)-1]), false},
		{"removed", nil, false},
	} {
		os.Remove(path)
		if c.disk != nil {
			if err := os.WriteFile(path, []byte(*c.disk), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		next, same := rebuild(path, true, sum, spans, size)
		if same != c.same || (same && string(next) != want) {
			t.Errorf("%s: same %v (want %v), text right: %v", c.name, same, c.same, string(next) == want)
		}
	}
	// A file the edit creates: its text is the edits', unless one
	// appeared meanwhile.
	created := []lspserver.EditSpan{{Text: "hello\n"}}
	os.Remove(path)
	if next, same := rebuild(path, false, sha256.Sum256(nil), created, 6); !same || string(next) != "hello\n" {
		t.Errorf("new file: %q, %v", next, same)
	}
	os.WriteFile(path, nil, 0o644)
	if _, same := rebuild(path, false, sha256.Sum256(nil), created, 6); same {
		t.Error("a file created meanwhile was overwritten")
	}
}

func ptr(s string) *string { return &s }

// Issue 27 item 2: applying a one-line edit to a big file costs about two
// copies of it in all (the text read for the preview, the text written),
// where it cost six; what lands is the file with that one line changed.
func TestApplyDocumentEdit_Issue27_TwoCopies(t *testing.T) {
	root := t.TempDir()
	var text bytes.Buffer
	for i := range 60_000 {
		fmt.Fprintf(&text, "// line %06d: filler text for a large generated file\n", i)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := text.Len()
	var out bytes.Buffer
	c := &client{root: root, out: &printer{w: &out, errw: &out}, ctx: context.Background()}
	no := false
	notes := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{"a": {Label: "edit", NeedsConfirmation: &no}}
	dc := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}},
		Edits: []protocol.TextDocumentEditElement{&protocol.AnnotatedTextEdit{TextEdit: protocol.TextEdit{
			Range:   protocol.Range{Start: protocol.Position{Line: 40_001, Character: 16}, End: protocol.Position{Line: 40_001, Character: 22}},
			NewText: "EDITED"}, AnnotationID: "a"}}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wrote, failure := c.applyDocumentEdit(dc, notes, false, &lspserver.HunkReply{})
	runtime.ReadMemStats(&after)
	if !wrote {
		t.Fatalf("not written: %s\n%s", failure, out.String())
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(text.String(), "// line 040001: filler", "// line 040001: EDITED", 1)
	if string(got) != want {
		t.Fatalf("the file is not the one line changed (%d bytes, want %d)", len(got), len(want))
	}
	if !strings.Contains(out.String(), "@@ -39999,7 +39999,7 @@") {
		t.Errorf("the preview lacks the hunk at line 40002 with its context:\n%s", out.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(size)*5/2 {
		t.Errorf("applying one line to %d bytes allocated %d bytes (%.1f copies); want at most 2.5", size, alloc, float64(alloc)/float64(size))
	}
}

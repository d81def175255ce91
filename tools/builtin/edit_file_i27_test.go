package builtin

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// Issue 27 item 2: an edit of a big file builds the new text once, in
// one buffer of its size, and leaves the bytes read (the change's Old)
// as they were.
func TestApplyEdit_Issue27_OneCopy(t *testing.T) {
	content := []byte(strings.Repeat("// filler text for a large generated file\n", 50_000) + "the line to change\n")
	orig := bytes.Clone(content)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	next, f := applyEdit(content, 0, "the line to change", "the changed line")
	runtime.ReadMemStats(&after)
	if f != nil {
		t.Fatal(f)
	}
	if want := strings.Replace(string(orig), "the line to change", "the changed line", 1); string(next) != want {
		t.Fatalf("wrong result (%d bytes, want %d)", len(next), len(want))
	}
	if !bytes.Equal(content, orig) {
		t.Error("applyEdit wrote into the content it read")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(content))*11/10 {
		t.Errorf("one edit of %d bytes allocated %d (%.1f copies); want one", len(content), alloc, float64(alloc)/float64(len(content)))
	}
}

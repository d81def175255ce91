package lspserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
)

func pos(line, char int) map[string]int { return map[string]int{"line": line, "character": char} }

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": pos(l1, c1), "end": pos(l2, c2)}
}

func (h *harness) changeRanges(rel string, version int, changes ...map[string]any) {
	h.t.Helper()
	list := make([]any, len(changes))
	for i, c := range changes {
		list[i] = c
	}
	err := h.c.Notify(h.ctx(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": h.uri(rel), "version": version},
		"contentChanges": list,
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

func edit(r map[string]any, text string) map[string]any {
	return map[string]any{"range": r, "text": text}
}

// E9: didOpen/didChange keep an overlay with UTF-16 positions (emoji, CJK,
// CRLF lines); a version that does not grow is refused; a plan run's
// read_file sees the unsaved buffer, not the disk.
func TestServer_E9_OverlayUTF16(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"u.txt"}}]}`,
		`{"content":"Plan: done."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"u.txt": "ON DISK\n"}})

	// Line 0: "a😀b世界c" — 😀 is two UTF-16 units, 世 and 界 one each.
	// Line 1: "δ中\tz"; lines end in CRLF.
	h.open("u.txt", 1, "a😀b世界c\r\nδ中\tz\r\nlast")
	h.changeRanges("u.txt", 2,
		edit(rng(0, 3, 0, 4), "B"),         // b → B (after the surrogate pair)
		edit(rng(0, 4, 0, 6), "世界🌍"),       // 世界 → 世界🌍
		edit(rng(1, 1, 1, 2), "文"),         // 中 → 文 on the CRLF line
		edit(rng(1, 99, 1, 99), "!"),       // past the end of line 1: clamped before \r\n
		edit(rng(2, 0, 2, 0), ">"),         // start of the last line
		edit(rng(0, 1, 0, 3), "🙂"),         // replace the whole surrogate pair
		edit(rng(2, 5, 2, 5), "\r\nnew 𝄞"), // append a line at the very end
	)
	// Refused: same version, lower version.
	h.changeRanges("u.txt", 2, edit(rng(0, 0, 0, 0), "STALE"))
	h.changeRanges("u.txt", 1, edit(rng(0, 0, 0, 0), "OLDER"))
	// A change to a document that is not open is ignored too.
	h.changeRanges("other.txt", 9, edit(rng(0, 0, 0, 0), "x"))

	res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("u.txt"), "instruction": "read it"})
	if res.Status != "done" {
		t.Fatalf("status %q: %s", res.Status, res.Summary)
	}
	got := readBack(h.toolResult("r1"))
	want := []string{"a🙂B世界🌍c", "δ文\tz!", ">last", "new 𝄞"}
	if !slices.Equal(got, want) {
		t.Errorf("read_file saw %q, want %q", got, want)
	}
	if d := h.read("u.txt"); d != "ON DISK\n" {
		t.Errorf("the disk changed: %q", d)
	}

	// didClose drops the overlay: reads go back to the disk.
	if err := h.c.Notify(h.ctx(), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": h.uri("u.txt")}}); err != nil {
		t.Fatal(err)
	}
}

// E9: after didClose, a run reads the disk again.
func TestServer_E9_CloseFallsBackToDisk(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.txt"}}]}`,
		`{"content":"ok"}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.txt": "disk\n"}})
	h.open("a.txt", 1, "buffer\n")
	if err := h.c.Notify(h.ctx(), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": h.uri("a.txt")}}); err != nil {
		t.Fatal(err)
	}
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.txt"), "instruction": "read"})
	if got := readBack(h.toolResult("r1")); !slices.Equal(got, []string{"disk"}) {
		t.Errorf("read %q after didClose, want the disk", got)
	}
}

// Wire order: 2,000 didChange notifications sent back to back, each
// appending one character, then a plan whose model reads the file. The
// overlay must hold every change, in order (a change handled out of order
// is refused for its version and its character goes missing).
func TestServer_E9_WireOrder(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"w.txt"}}]}`,
		`{"content":"ok"}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"w.txt": ""}})
	h.open("w.txt", 0, "")
	const n = 2000
	var want strings.Builder
	line, col := 0, 0
	ctx := h.ctx()
	for i := range n {
		ch := string(rune('a' + i%26))
		if i%40 == 39 {
			ch = "\n"
		}
		err := h.c.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": h.uri("w.txt"), "version": i + 1},
			"contentChanges": []any{edit(rng(line, col, line, col), ch)},
		})
		if err != nil {
			t.Fatal(err)
		}
		want.WriteString(ch)
		if ch == "\n" {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("w.txt"), "instruction": "read"})
	got := strings.Join(readBack(h.toolResult("r1")), "\n")
	wantText := strings.TrimSuffix(want.String(), "\n")
	if got != wantText {
		t.Errorf("overlay after %d changes differs: got %d bytes, want %d\nfirst difference at %d",
			n, len(got), len(wantText), firstDiff(got, wantText))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

package lspserver

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestCommentInstruction_E19: an "agentls:" comment in any comment syntax
// gives the instruction of a client without an input box: in the selected
// lines, or on the cursor's line and the comment right above it; lines of
// the same comment continue it; anything that is not a comment marker
// (a string, a URL, a word ending in "agentls:") gives none.
func TestCommentInstruction_E19(t *testing.T) {
	at := func(line, char uint32) protocol.Range {
		p := protocol.Position{Line: line, Character: char}
		return protocol.Range{Start: p, End: p}
	}
	lines := func(from, to uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: from}, End: protocol.Position{Line: to}}
	}
	tests := []struct {
		name, text string
		r          protocol.Range
		want       string
	}{
		{"go line comment above the cursor", "package a\n\n// agentls: handle the empty cart\nfunc Total() int {\n", at(3, 5), "handle the empty cart"},
		{"cursor on the comment", "// agentls: handle the empty cart\n", at(0, 0), "handle the empty cart"},
		{"hash", "x = 1\n# agentls: rename x to count\n", at(1, 3), "rename x to count"},
		{"sql dashes", "-- agentls: add an index\nSELECT 1;\n", at(1, 0), "add an index"},
		{"block comment", "/* agentls: make it safe */\nint f();\n", at(1, 0), "make it safe"},
		{"lisp semicolons", ";; agentls: use cl-lib\n(defun f ())\n", at(1, 0), "use cl-lib"},
		{"html", "<!-- agentls: add alt text -->\n<img>\n", at(1, 0), "add alt text"},
		{"trailing comment", "total := 0 // agentls: sum the cart\n", at(0, 0), "sum the cart"},
		{"marker case", "// AgentLS: Keep it short\n", at(0, 0), "Keep it short"},
		{"continued line comment", "// agentls: handle the empty cart\n// and return an error\nfunc f() {}\n", at(2, 0), "handle the empty cart and return an error"},
		{"continued block", "/*\n * agentls: handle the empty cart\n * and say so\n */\nfunc f() {}\n", at(4, 0), "handle the empty cart and say so"},
		{"javadoc block", "/** agentls: document\n * the return value */\n", at(1, 0), "document the return value"},
		{"nearest above the cursor", "// agentls: first\nx\n// agentls: second\ny\n", at(3, 0), "second"},
		{"code line breaks the walk up", "// agentls: far away\nx := 1\ny := 2\n", at(2, 0), ""},
		{"selection: first marker", "a\n// agentls: one\n// agentls: two\n", lines(0, 3), "one"},
		{"selection excludes the line it ends at column 0", "a\nb\n// agentls: below\n", lines(0, 2), ""},
		{"selection excludes lines above it", "// agentls: above\na\nb\n", lines(1, 3), ""},
		{"a string is not a comment", "s := \"// agentls: no\"\n", at(0, 0), ""},
		{"a URL is not a comment", "see http://agentls: no\n", at(0, 0), ""},
		{"a word ending in the marker", "// myagentls: no\n", at(0, 0), ""},
		{"empty instruction", "// agentls:\n", at(0, 0), ""},
		{"no comment", "package a\n", at(0, 0), ""},
		{"range past the end", "package a\n", at(9, 0), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := commentInstruction(tt.text, tt.r); got != tt.want {
				t.Errorf("commentInstruction(%q, %v) = %q, want %q", tt.text, tt.r, got, tt.want)
			}
		})
	}
}

// TestCommentInstruction_E19_Bounded: a huge comment gives an instruction
// of at most maxInstructionBytes, valid UTF-8.
func TestCommentInstruction_E19_Bounded(t *testing.T) {
	text := "// agentls: " + strings.Repeat("é", maxInstructionBytes) + "\n"
	got := commentInstruction(text, protocol.Range{})
	if len(got) > maxInstructionBytes || !strings.HasPrefix(got, "éé") || !utf8Valid(got) {
		t.Errorf("instruction of %d bytes (valid %v), want at most %d", len(got), utf8Valid(got), maxInstructionBytes)
	}
}

// TestInstructionTitle_E19: a code action title shows the instruction with
// control bytes made visible, cut at maxInstructionTitle characters.
func TestInstructionTitle_E19(t *testing.T) {
	if got := instructionTitle("drop \x1b[2Jtables"); strings.ContainsRune(got, 0x1b) || !strings.Contains(got, "tables") {
		t.Errorf("title %q: an escape byte reaches the editor", got)
	}
	long := instructionTitle(strings.Repeat("word ", 40))
	if n := len([]rune(long)); n > maxInstructionTitle || !strings.HasSuffix(long, "…") {
		t.Errorf("title %q (%d characters), want at most %d ending in …", long, n, maxInstructionTitle)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

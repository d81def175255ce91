package lspserver

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/sandbox"
)

// An instruction without an input box (E19): a client that cannot ask the
// user for text (eglot, Kate, Helix) gets its instruction from a comment
// in the file, marked "agentls:", in any comment syntax:
//
//	// agentls: handle the empty cart
//	# agentls: …        -- agentls: …        ;; agentls: …
//	/* agentls: … */     <!-- agentls: … -->  % agentls: …
//
// The comment is looked for in the selected lines, or, for a cursor
// without a selection, on the cursor's line and the comment lines right
// above it. Lines of the same comment that follow the marker continue the
// instruction.

// instructionMarker starts an instruction inside a comment; it is matched
// without regard to case.
const instructionMarker = "agentls:"

// Bounds of a comment instruction: the lines looked at above a cursor,
// the instruction's length, and the length of its code action title.
const (
	maxLinesAbove        = 10
	maxInstructionBytes  = 4000
	maxInstructionTitle  = 60
	maxContinuationLines = 20
)

// commentOpeners are the comment starts an instruction may follow, longest
// first so that "<!--" wins over "--" and "/*" over "*".
var commentOpeners = []string{"<!--", "//", "/*", ";;", "--", "#", ";", "%", "*"}

// commentInstruction returns the instruction of the first "agentls:"
// comment in the selected lines of text, or, when r is empty, the nearest
// one on the cursor's line or the comment lines right above it; "" when
// there is none.
func commentInstruction(text string, r protocol.Range) string {
	lines := strings.Split(text, "\n")
	first, last := int(r.Start.Line), int(r.End.Line)
	if last > first && r.End.Character == 0 {
		last-- // a selection of whole lines ends at the next line's start
	}
	if first < 0 || first >= len(lines) || last < first {
		return ""
	}
	last = min(last, len(lines)-1)
	if r.Start == r.End {
		// The cursor's line, then up through the comment right above it.
		for i := first; i >= 0 && i >= first-maxLinesAbove; i-- {
			if ins := instructionAt(lines, i); ins != "" {
				return ins
			}
			if i < first && !isComment(lines[i]) {
				break
			}
		}
		return ""
	}
	for i := first; i <= last; i++ {
		if ins := instructionAt(lines, i); ins != "" {
			return ins
		}
	}
	return ""
}

// instructionAt returns the instruction whose marker is on line i, with
// the lines of the same comment that follow it; "" when line i has none.
func instructionAt(lines []string, i int) string {
	opener, rest, ok := markerLine(lines[i])
	if !ok {
		return ""
	}
	parts := []string{rest}
	// A block comment, or a line inside one (" * agentls: …"), goes on
	// until it closes.
	block := opener == "/*" || opener == "<!--" || opener == "*"
	closed := block && closesBlock(lines[i])
	for j := i + 1; j < len(lines) && j <= i+maxContinuationLines && !closed; j++ {
		next, ok := continuation(lines[j], opener, block)
		if !ok {
			break
		}
		parts = append(parts, next)
		closed = block && closesBlock(lines[j])
	}
	return boundInstruction(strings.Join(strings.Fields(strings.Join(parts, " ")), " "))
}

// markerLine finds a comment opener followed by the marker on line, and
// returns the opener and the text after the marker, its comment closer
// removed. The opener must start the line or follow whitespace (a
// trailing comment), so a string such as "x--agentls:" or a URL is not
// taken for a comment.
func markerLine(line string) (opener, rest string, ok bool) {
	lower := strings.ToLower(line)
	for from := 0; ; {
		k := strings.Index(lower[from:], instructionMarker)
		if k < 0 {
			return "", "", false
		}
		k += from
		from = k + len(instructionMarker)
		before := strings.TrimRight(line[:k], " \t")
		head := strings.TrimRight(before, commentPunct)
		if head != "" && !strings.HasSuffix(head, " ") && !strings.HasSuffix(head, "\t") {
			continue
		}
		if o := openerOf(before[len(head):]); o != "" {
			return o, uncomment(line[from:]), true
		}
	}
}

// commentPunct are the characters comment openers are made of.
const commentPunct = "/*#;-%!<"

// openerOf returns the comment opener tok starts with ("/**" is "/*"),
// or "" when tok is none.
func openerOf(tok string) string {
	for _, o := range commentOpeners {
		if strings.HasPrefix(tok, o) {
			return o
		}
	}
	return ""
}

// continuation reports whether line continues a comment opened with
// opener, and returns its text.
func continuation(line, opener string, block bool) (string, bool) {
	t := strings.TrimSpace(line)
	if t == "" || strings.Contains(strings.ToLower(t), instructionMarker) {
		return "", false
	}
	if block {
		return strings.TrimSpace(strings.TrimPrefix(uncomment(t), "*")), true
	}
	if !strings.HasPrefix(t, opener) {
		return "", false
	}
	return uncomment(strings.TrimLeft(t, opener[:1])), true
}

// isComment reports whether line is a comment line (after indentation).
func isComment(line string) bool {
	t := strings.TrimSpace(line)
	for _, o := range commentOpeners {
		if strings.HasPrefix(t, o) {
			return true
		}
	}
	return strings.HasSuffix(t, "*/") || strings.HasSuffix(t, "-->")
}

func closesBlock(line string) bool {
	return strings.Contains(line, "*/") || strings.Contains(line, "-->")
}

// uncomment trims s and removes a block comment's closer and what follows.
func uncomment(s string) string {
	for _, c := range []string{"*/", "-->"} {
		if i := strings.Index(s, c); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// boundInstruction cuts an instruction at maxInstructionBytes, at a
// character boundary.
func boundInstruction(s string) string {
	if len(s) <= maxInstructionBytes {
		return s
	}
	return strings.ToValidUTF8(s[:maxInstructionBytes], "")
}

// instructionTitle is an instruction as a code action shows it: control
// bytes made visible, cut at maxInstructionTitle characters with "…".
func instructionTitle(s string) string {
	v := sandbox.Visible(s)
	if utf8.RuneCountInString(v) <= maxInstructionTitle {
		return v
	}
	r := []rune(v)
	return strings.TrimSpace(string(r[:maxInstructionTitle-1])) + "…"
}

package sandbox

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s with every control character made visible (T22):
// C0 and C1 controls, DEL, and the Unicode format characters that reorder
// or hide text (bidirectional overrides, zero-width characters, line and
// paragraph separators) become escapes such as \x1b, \r or \u202e, and
// invalid UTF-8 becomes \xNN; a backslash stays as it is. Text from the
// model, the repository or a server goes through it before a person reads
// it in one line (a path, a command, a name): what is shown is then what
// is there. Newlines and tabs are escaped too (\n, \t); for text of many
// lines use [VisibleText].
func Visible(s string) string {
	return visible(s, false)
}

// VisibleText is [Visible] for text of many lines that a person reads on
// a terminal: a diff, the model's answer, a question, a message. Newlines
// and tabs stay as they are (they only start a line or move the cursor
// right); everything else Visible escapes is escaped, a carriage return
// (\r) and ESC (\x1b) included, so that no line can move the cursor back
// over what was printed, erase it or restyle the terminal.
func VisibleText(s string) string {
	return visible(s, true)
}

// visible escapes s; with layout, \n and \t are kept.
func visible(s string, layout bool) string {
	i := firstEscape(s, layout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case layout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstEscape is the index of the first byte of s that visible changes,
// or -1.
func firstEscape(s string, layout bool) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case layout && (r == '\n' || r == '\t'):
		case (r == utf8.RuneError && n == 1) || r < 0x20 || r == 0x7f || hidden(r):
			return i
		}
		i += n
	}
	return -1
}

// hidden reports C1 controls, the line and paragraph separators, and
// format characters (Cf: bidi overrides and isolates, zero-width joiners
// and spaces, the BOM, tag characters).
func hidden(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

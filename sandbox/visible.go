package sandbox

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s with every control character made visible (T22):
// C0 and C1 controls, DEL, and the Unicode format characters that reorder
// or hide text (bidirectional overrides, zero-width characters) become
// escapes such as \x1b, \r or \u202e, and invalid UTF-8 becomes \xNN; a
// backslash stays as it is. Text from the model, the repository or a
// server goes through it before a person reads it in one line (a path, a
// command): what is shown is then what is there.
func Visible(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || r < 0x20 || r == 0x7f || hidden(r) {
			return true
		}
		i += n
	}
	return false
}

// hidden reports C1 controls and format characters (Cf: bidi overrides
// and isolates, zero-width joiners and spaces, the BOM).
func hidden(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r)
}

package tools

import (
	"strings"
	"testing"
)

// E18 (issue 24 item 8): a hunk's label says what it changes, quoting the
// first non-blank line, with control bytes made visible and a cut.
func TestHunkWhat_E18_SaysWhatChanges(t *testing.T) {
	for _, tt := range []struct{ old, repl, want string }{
		{"", "\n\tfunc Three() int { return 3 }\n", "insert “func Three() int { return 3 }”"},
		{"// filler\n// more\n", "", "delete “// filler”"},
		{"x := 1\n", "x := 2\n", "change to “x := 2”"},
		{"x\n", "\n\n", "change to blank lines"},
		{"x\n", "evil\x1b[2Jline\n", "change to “evil\\x1b[2Jline”"},
		{"x\n", strings.Repeat("é", 60) + "\n", "change to “" + strings.Repeat("é", 48) + "…”"},
	} {
		if got := hunkWhat(tt.old, tt.repl); got != tt.want {
			t.Errorf("hunkWhat(%q, %q) = %q, want %q", tt.old, tt.repl, got, tt.want)
		}
	}
}

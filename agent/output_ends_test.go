package agent

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A19/E16: the run views get a command's output head and tail — the end
// of a test run says how it ended — with the lines left out counted; a
// short output whole; bytes bounded at each end, on whole characters.
func TestOutputEnds_A19_HeadAndTail(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := outputEnds(b.String())
	want := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n… 24 lines left out …\n" +
		"line 33\nline 34\nline 35\nline 36\nline 37\nline 38\nline 39\nline 40\n"
	if got != want {
		t.Errorf("40 lines:\n%s\nwant:\n%s", got, want)
	}
	short := "exit code 0, 1s\n[stdout]\nok\n"
	if got := outputEnds(short); got != short {
		t.Errorf("short output changed: %q", got)
	}
	long := strings.Repeat("é", 2000) // one line of 4000 bytes
	got = outputEnds(long)
	if !utf8.ValidString(got) || len(got) > 2*outputEndBytes+40 || !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "éé") ||
		!strings.Contains(got, "\n… 1 line left out …\n") {
		t.Errorf("one long line: %d bytes, valid %v: %q…", len(got), utf8.ValidString(got), got[:40])
	}
	noNewline := strings.TrimSuffix(b.String(), "\n")
	if got := outputEnds(noNewline); !strings.HasSuffix(got, "line 40") || !strings.Contains(got, "… 24 lines left out …\nline 33\n") {
		t.Errorf("without a final newline:\n%s", got)
	}
}

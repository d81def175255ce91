package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseFindings_E5_TextFallback pins the fallback layer of review
// findings: "path:line: message" lines in the final answer.
func TestParseFindings_E5_TextFallback(t *testing.T) {
	text := "Summary of the review.\n" +
		"main.go:12: error: nil map write\n" +
		"- util/x.go:3-5: duplicated logic\n" +
		"* `a.go:7`: hint: rename\n" +
		"not a finding: 12\n" +
		"http://example.com:80: nope\n" +
		"b.go:0: zero line is invalid\n"
	got := ParseFindings(text)
	want := []Finding{
		{Path: "main.go", Line: 12, Severity: "error", Message: "nil map write"},
		{Path: "util/x.go", Line: 3, EndLine: 5, Severity: "warning", Message: "duplicated logic"},
		{Path: "a.go", Line: 7, Severity: "hint", Message: "rename"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseFindings (-want +got):\n%s", d)
	}
}

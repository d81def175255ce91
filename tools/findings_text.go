package tools

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// findingLineRE matches "path:line: message" and "path:line-end: message",
// optionally as a list item, the form compilers and linters print.
var findingLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-*]\s+)?` + "`?" + `([^\s:` + "`" + `]+):(\d+)(?:-(\d+))?` + "`?" + `:\s+(.+?)\s*$`)
}) // compiled on first use: package init runs in every process (issue 16)

// ParseFindings extracts findings written as "path:line: message" lines in
// a model's final answer: the fallback layer when a model reports its
// review in text instead of calling report_finding. Severity is "warning"
// unless the message starts with "error:", "warning:", "info:" or "hint:".
// The findings still go through a FindingSink, which drops those outside
// the workspace or on lines that do not exist.
func ParseFindings(text string) []Finding {
	var out []Finding
	for _, line := range strings.Split(text, "\n") {
		m := findingLineRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n <= 0 {
			continue
		}
		f := Finding{Path: m[1], Line: n, Severity: "warning", Message: m[4]}
		if m[3] != "" {
			if end, err := strconv.Atoi(m[3]); err == nil && end >= n {
				f.EndLine = end
			}
		}
		for _, sev := range []string{"error", "warning", "info", "hint"} {
			if rest, ok := strings.CutPrefix(f.Message, sev+":"); ok {
				f.Severity, f.Message = sev, strings.TrimSpace(rest)
				break
			}
		}
		out = append(out, f)
	}
	return out
}

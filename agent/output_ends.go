package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The bounds of a tool result's output in the run views (E16, A19): the
// first and the last outputEndLines lines, each end at most
// outputEndBytes bytes.
const (
	outputEndLines = 8
	outputEndBytes = 800
)

// outputEnds is a tool result for the run views: its head and its tail
// (where a test run or a build says how it ended), with a line saying how
// many lines were left out between them; a short result whole.
func outputEnds(s string) string {
	head := firstLines(s, outputEndLines, outputEndBytes)
	rest := s[len(head):]
	tail := lastLines(rest, outputEndLines, outputEndBytes)
	left := rest[:len(rest)-len(tail)]
	if left == "" {
		return s
	}
	sep := ""
	if !strings.HasSuffix(head, "\n") {
		sep = "\n"
	}
	n := strings.Count(left, "\n")
	if !strings.HasSuffix(left, "\n") {
		n++
	}
	lines := "lines"
	if n == 1 {
		lines = "line"
	}
	return fmt.Sprintf("%s%s… %d %s left out …\n%s", head, sep, n, lines, tail)
}

// firstLines is the start of s up to and including its n-th newline, at
// most max bytes, ending on a whole UTF-8 character.
func firstLines(s string, n, max int) string {
	end := 0
	for i := 0; i < n && end < len(s); i++ {
		j := strings.IndexByte(s[end:], '\n')
		if j < 0 {
			end = len(s)
			break
		}
		end += j + 1
	}
	if end > max {
		end = max
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
	}
	return s[:end]
}

// lastLines is the end of s: its last n lines (a final newline ends the
// last one), at most max bytes, starting on a whole UTF-8 character.
func lastLines(s string, n, max int) string {
	start := len(s)
	body := strings.TrimSuffix(s, "\n")
	for i := 0; i < n; i++ {
		j := strings.LastIndexByte(body, '\n')
		if j < 0 {
			start = 0
			break
		}
		start, body = j+1, body[:j]
	}
	if len(s)-start > max {
		start = len(s) - max
		for start < len(s) && !utf8.RuneStart(s[start]) {
			start++
		}
	}
	return s[start:]
}

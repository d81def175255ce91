package builtin

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// lineMatcher finds the lines of a file that match a regular expression,
// with the semantics of matching each line on its own (split at "\n", a
// trailing "\r" dropped). When the expression has a required literal —
// a string every match contains, as ripgrep and git grep extract one — the
// whole buffer is scanned for it with bytes.Index and only the lines that
// hold it are run through the expression: a literal with no hit costs one
// pass of bytes.Index over the file.
type lineMatcher struct {
	re  *regexp.Regexp
	lit []byte // nil: no required literal; every line is matched
}

func newLineMatcher(re *regexp.Regexp) *lineMatcher {
	m := &lineMatcher{re: re}
	if lit := requiredLiteral(re.String()); lit != "" {
		m.lit = []byte(lit)
	}
	return m
}

// scan calls fn with the 1-based number and the text of every matching
// line of b, in order, until fn returns false.
func (m *lineMatcher) scan(b []byte, fn func(n int, line []byte) bool) {
	if m.lit == nil {
		m.scanLines(b, fn)
		return
	}
	n, counted, pos := 1, 0, 0
	for pos < len(b) {
		i := bytes.Index(b[pos:], m.lit)
		if i < 0 {
			return
		}
		i += pos
		start := pos + bytes.LastIndexByte(b[pos:i], '\n') + 1
		end := len(b)
		if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
			end = i + j
		}
		n += bytes.Count(b[counted:start], []byte{'\n'})
		counted = start
		if line := trimCR(b[start:end]); m.re.Match(line) && !fn(n, line) {
			return
		}
		pos = end + 1
	}
}

// scanLines matches every line: the expression has no required literal.
func (m *lineMatcher) scanLines(b []byte, fn func(n int, line []byte) bool) {
	for n, pos := 1, 0; pos < len(b); n++ {
		end := len(b)
		if j := bytes.IndexByte(b[pos:], '\n'); j >= 0 {
			end = pos + j
		}
		if line := trimCR(b[pos:end]); m.re.Match(line) && !fn(n, line) {
			return
		}
		pos = end + 1
	}
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// requiredLiteral returns a string that every match of the RE2 expression
// pattern contains, the longest one it can tell, or "" when it finds none
// (an alternation, a case-insensitive literal, an expression that can
// match the empty string). FuzzSearch_B1_RequiredLiteral checks that a
// line the expression matches always holds it.
func requiredLiteral(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	return required(re.Simplify())
}

func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, s := range re.Sub {
			lit := required(s)
			if s.Op == syntax.OpLiteral && lit != "" {
				run += lit // adjacent literals are one required string
			} else {
				run = lit
			}
			if len(run) > len(best) {
				best = run
			}
			if s.Op != syntax.OpLiteral {
				run = ""
			}
		}
		return best
	}
	return ""
}

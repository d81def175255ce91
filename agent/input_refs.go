package agent

import "unicode/utf8"

// maxRefRunes bounds the path of one @reference, in characters.
const maxRefRunes = 1000

// refSpan is one @path reference found by [findRefs]: instruction[start:end]
// is the path token after "@", quotes included when it is quoted.
type refSpan struct{ start, end int }

// findRefs finds the @path references of s, left to right: "@" at the
// start of s or after a space or an opening bracket (one of \t\n\f\r
// space ( [ { , ;), then either a quoted path ("…", 1-1000 characters,
// no quote or newline inside) or a run of 1-1000 path characters (no
// space, quote, backtick, comma, semicolon, bracket or angle bracket).
//
// It is a hand-written scanner, not a regular expression: the bounded
// repetitions compiled into a program of thousands of instructions,
// ≈ 1 ms and 1 MB of CPU and garbage on every start before the first
// model request (issue 16). It finds exactly the matches the expression
//
//	(?:^|[\s(\[{,;])@("[^"\n]{1,1000}"|[^\s"'`,;()\[\]{}<>]{1,1000})
//
// finds with FindAllStringSubmatchIndex (group 1), which the tests check.
func findRefs(s string) []refSpan {
	var out []refSpan
	for i := 0; i < len(s); {
		at := -1
		switch {
		case i == 0 && s[0] == '@':
			at = 0
		case isRefLead(s[i]) && i+1 < len(s) && s[i+1] == '@':
			at = i + 1
		}
		if at < 0 {
			i++
			continue
		}
		if end := refToken(s, at+1); end > 0 {
			out = append(out, refSpan{at + 1, end})
			i = end // matches do not overlap
			continue
		}
		i++
	}
	return out
}

// refToken returns the end of the path token that starts at s[i:], or 0
// when none starts there.
func refToken(s string, i int) int {
	if i < len(s) && s[i] == '"' {
		n := 0
		for j := i + 1; j < len(s); {
			r, w := utf8.DecodeRuneInString(s[j:])
			switch {
			case r == '\n':
				return 0
			case r == '"':
				if n == 0 {
					return 0
				}
				return j + 1
			}
			if n++; n > maxRefRunes {
				return 0
			}
			j += w
		}
		return 0 // no closing quote
	}
	j := i
	for n := 0; n < maxRefRunes && j < len(s); n++ {
		r, w := utf8.DecodeRuneInString(s[j:])
		if !isRefPathRune(r) {
			break
		}
		j += w
	}
	if j == i {
		return 0
	}
	return j
}

// isRefLead reports whether c may stand right before the "@" of a reference.
func isRefLead(c byte) bool {
	switch c {
	case '\t', '\n', '\f', '\r', ' ', '(', '[', '{', ',', ';':
		return true
	}
	return false
}

// isRefPathRune reports whether r may be part of an unquoted path.
func isRefPathRune(r rune) bool {
	switch r {
	case '\t', '\n', '\f', '\r', ' ', '"', '\'', '`', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>':
		return false
	}
	return true
}

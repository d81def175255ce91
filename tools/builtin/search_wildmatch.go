package builtin

import "strings"

// wildmatch results, as git's wildmatch.c has them: the two aborts cut
// the backtracking of "*" short, so no pattern takes exponential time.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch matches text against the gitignore glob p with git's
// WM_PATHNAME semantics, byte by byte: "*" and "?" never match "/", "**"
// between slashes (or at either end) matches any number of directories.
// It is a port of git's dowild.
func wildmatch(p, text string) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(text) {
			tc = text[ti]
		}
		switch pc {
		case '\\':
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			return star(p, pi, text, ti)
		case '[':
			next, ok := matchClass(p, pi, tc)
			if next < 0 {
				return wmAbortAll
			}
			if !ok || tc == '/' {
				return wmNoMatch
			}
			pi = next
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the rest of text against p from the "*" at p[pi].
func star(p string, pi int, text string, ti int) int {
	pi++
	matchSlash := false
	if pi < len(p) && p[pi] == '*' {
		prev := pi - 2
		for pi < len(p) && p[pi] == '*' {
			pi++
		}
		if (prev < 0 || p[prev] == '/') && (pi == len(p) || p[pi] == '/' || strings.HasPrefix(p[pi:], `\/`)) {
			if pi < len(p) && p[pi] == '/' && wildmatch(p[pi+1:], text[ti:]) == wmMatch {
				return wmMatch
			}
			matchSlash = true
		}
	}
	rest := text[ti:]
	if pi == len(p) {
		if !matchSlash && strings.Contains(rest, "/") {
			return wmNoMatch
		}
		return wmMatch
	}
	if !matchSlash && p[pi] == '/' {
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return wmNoMatch
		}
		return wildmatch(p[pi:], rest[slash:])
	}
	for i := 0; i < len(rest); i++ {
		if c := p[pi]; !strings.ContainsRune(`*?[\`, rune(c)) {
			// A literal after the star: skip to where it occurs.
			for i < len(rest) && rest[i] != c && (matchSlash || rest[i] != '/') {
				i++
			}
			if i == len(rest) || rest[i] != c {
				return wmNoMatch
			}
		}
		m := wildmatch(p[pi:], rest[i:])
		if m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m
			}
		} else if !matchSlash && rest[i] == '/' {
			return wmAbortToStarStar
		}
	}
	return wmAbortAll
}

// matchClass matches c against the class starting at p[pi] == '['. next
// is the index of its closing ']', or -1 when the class is not closed.
func matchClass(p string, pi int, c byte) (next int, ok bool) {
	pi++
	negated := pi < len(p) && (p[pi] == '!' || p[pi] == '^')
	if negated {
		pi++
	}
	var prev byte
	matched := false
	for first := true; ; first = false {
		if pi >= len(p) {
			return -1, false
		}
		pc := p[pi]
		if pc == ']' && !first {
			break
		}
		switch {
		case pc == '\\':
			if pi++; pi >= len(p) {
				return -1, false
			}
			pc = p[pi]
			matched = matched || c == pc
		case pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
			pi++
			hi := p[pi]
			if hi == '\\' {
				if pi++; pi >= len(p) {
					return -1, false
				}
				hi = p[pi]
			}
			matched = matched || (c >= prev && c <= hi)
			pc = 0
		case pc == '[' && pi+1 < len(p) && p[pi+1] == ':':
			end := strings.IndexByte(p[pi+2:], ']')
			if end < 0 {
				return -1, false
			}
			if end == 0 || p[pi+2+end-1] != ':' { // no ":]": a plain '['
				matched = matched || c == '['
				break
			}
			in, known := posixClass(p[pi+2:pi+2+end-1], c)
			if !known {
				return -1, false
			}
			matched = matched || in
			pi += 2 + end
			pc = 0
		default:
			matched = matched || c == pc
		}
		prev = pc
		pi++
	}
	return pi, matched != negated
}

// posixClass reports whether c is in the named [:class:].
func posixClass(name string, c byte) (in, known bool) {
	lower, upper, digit := c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !lower && !upper && !digit, true
	case "space":
		return strings.IndexByte(" \t\n\r\v\f", c) >= 0, true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}

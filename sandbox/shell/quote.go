package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Decoding of shell quoting and of the parameter expansion operators the
// analyser evaluates.

// trimPattern applies ${v%pat}, ${v%%pat}, ${v#pat} or ${v##pat}, where
// pat may use * and ?.
func trimPattern(v, pat string, op syntax.ParExpOperator) string {
	n := len(v)
	switch op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		for k := 0; k <= n; k++ {
			i := n - k
			if op == syntax.RemLargeSuffix {
				i = k
			}
			if globMatch(pat, v[i:]) {
				return v[:i]
			}
		}
	default:
		for k := 0; k <= n; k++ {
			i := k
			if op == syntax.RemLargePrefix {
				i = n - k
			}
			if globMatch(pat, v[:i]) {
				return v[i:]
			}
		}
	}
	return v
}

// globMatch matches s against a shell pattern of literals, * and ?, where
// * also matches slashes.
func globMatch(pat, s string) bool {
	for pat != "" {
		switch pat[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if globMatch(pat[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pat, s = pat[1:], s[1:]
		default:
			if s == "" || s[0] != pat[0] {
				return false
			}
			pat, s = pat[1:], s[1:]
		}
	}
	return s == ""
}

// unescapeLit removes the backslashes of an unquoted literal.
func unescapeLit(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		sb.WriteByte(v[i])
	}
	return sb.String()
}

// unescapeDQ removes the backslashes that are special inside double quotes.
func unescapeDQ(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\", v[i+1]) >= 0 {
			i++
		}
		sb.WriteByte(v[i])
	}
	return sb.String()
}

// ansiC decodes the body of a $'…' string as bash does.
func ansiC(v string) string {
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch c = v[i]; c {
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'e', 'E':
			sb.WriteByte(0x1b)
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte('\v')
		case 'c':
			if i+1 < len(v) {
				i++
				sb.WriteByte(v[i] & 0x1f)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(v) && j < i+3 && '0' <= v[j] && v[j] <= '7'; j++ {
				n = n*8 + int(v[j]-'0')
			}
			sb.WriteByte(byte(n))
			i = j - 1
		case 'x', 'u', 'U':
			max := 2
			if c == 'u' {
				max = 4
			} else if c == 'U' {
				max = 8
			}
			n, j := 0, i+1
			for ; j < len(v) && j < i+1+max && hexVal(v[j]) >= 0; j++ {
				n = n*16 + hexVal(v[j])
			}
			if j == i+1 {
				sb.WriteByte('\\')
				sb.WriteByte(c)
				break
			}
			if c == 'x' {
				sb.WriteByte(byte(n))
			} else {
				sb.WriteRune(rune(n))
			}
			i = j - 1
		case '\\', '\'', '"', '?':
			sb.WriteByte(c)
		default:
			sb.WriteByte('\\')
			sb.WriteByte(c)
		}
	}
	s := sb.String()
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

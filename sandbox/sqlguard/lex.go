package sqlguard

// A small SQL tokenizer that follows SQLite's own (tokenize.c) closely
// enough that it never sees less code than SQLite does: strings, quoted
// identifiers and comments end exactly where SQLite ends them, and anything
// it does not understand is an error rather than a guess.

// sqlTokKind classifies a token.
type sqlTokKind uint8

const (
	tokWord   sqlTokKind = iota + 1 // bare identifier or keyword
	tokQuoted                       // "id", `id` or [id]
	tokString                       // 'text'
	tokBlob                         // x'hex'
	tokNumber
	tokLParen
	tokRParen
	tokSemi
	tokComma
	tokDot
	tokEq // = or ==
	tokOp // any other operator
)

// sqlTok is one token: its kind and its byte range in the query.
type sqlTok struct {
	kind       sqlTokKind
	start, end int32
}

// sqlLexError is why a query could not be tokenized.
type sqlLexError string

// isIDByte reports whether b can continue a bare identifier: SQLite counts
// every byte >= 0x80 as an identifier character, so a fullwidth or
// lookalike letter never forms a keyword.
func isIDByte(b byte) bool {
	return b >= 0x80 || b == '_' || b == '$' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

func isIDStart(b byte) bool {
	return b >= 0x80 || b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isHex(b byte) bool { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'f' }

// scanNumber scans a numeric literal at q[i] as SQLite does; trailing
// identifier characters, which SQLite rejects, are swallowed.
func scanNumber(q string, i int) int {
	n := len(q)
	if q[i] == '0' && i+2 < n && q[i+1]|0x20 == 'x' && isHex(q[i+2]) {
		i += 3
		for i < n && (isHex(q[i]) || q[i] == '_') {
			i++
		}
	} else {
		for i < n && (isDigit(q[i]) || q[i] == '_') {
			i++
		}
		if i < n && q[i] == '.' {
			i++
			for i < n && (isDigit(q[i]) || q[i] == '_') {
				i++
			}
		}
		if i+1 < n && q[i]|0x20 == 'e' && (isDigit(q[i+1]) ||
			(q[i+1] == '+' || q[i+1] == '-') && i+2 < n && isDigit(q[i+2])) {
			i += 2
			for i < n && isDigit(q[i]) {
				i++
			}
		}
	}
	for i < n && isIDByte(q[i]) {
		i++
	}
	return i
}

// lexSQL appends the tokens of q to toks, dropping whitespace and
// comments. q has been checked for control characters already.
func lexSQL(q string, toks []sqlTok) ([]sqlTok, sqlLexError) {
	i, n := 0, len(q)
	for i < n {
		c := q[i]
		start := i
		var kind sqlTokKind
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
			continue
		case c == '-' && i+1 < n && q[i+1] == '-':
			for i < n && q[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < n && q[i+1] == '*':
			i += 2
			for i < n && !(q[i] == '*' && i+1 < n && q[i+1] == '/') {
				i++
			}
			i = min(i+2, n) // an unclosed comment runs to the end, as in SQLite
			continue
		case c == '\'':
			j, ok := scanQuoted(q, i, '\'')
			if !ok {
				return toks, "unterminated string literal"
			}
			i, kind = j, tokString
		case c == '"' || c == '`':
			j, ok := scanQuoted(q, i, c)
			if !ok {
				return toks, "unterminated quoted identifier"
			}
			i, kind = j, tokQuoted
		case c == '[':
			j := i + 1
			for j < n && q[j] != ']' {
				j++
			}
			if j == n {
				return toks, "unterminated [identifier]"
			}
			i, kind = j+1, tokQuoted
		case (c == 'x' || c == 'X') && i+1 < n && q[i+1] == '\'':
			j := i + 2
			for j < n && isHex(q[j]) {
				j++
			}
			if j == n || q[j] != '\'' || (j-i)%2 != 0 {
				return toks, "malformed blob literal"
			}
			i, kind = j+1, tokBlob
		case isDigit(c) || c == '.' && i+1 < n && isDigit(q[i+1]):
			i, kind = scanNumber(q, i), tokNumber
		case isIDStart(c):
			for i < n && isIDByte(q[i]) {
				i++
			}
			kind = tokWord
		case c == '?' || c == ':' || c == '@' || c == '$' || c == '#':
			// SQLite's Tcl-style variables can swallow quotes: refuse
			// parameters outright, nothing is ever bound to them.
			return toks, "query parameters are not supported; write values inline"
		default:
			var ok bool
			i, kind, ok = scanPunct(q, i)
			if !ok {
				return toks, "unexpected character"
			}
		}
		toks = append(toks, sqlTok{kind: kind, start: int32(start), end: int32(i)})
	}
	return toks, ""
}

// scanQuoted scans a token opened by quote at q[i], where a doubled quote
// stands for itself, and returns the index after its closing quote.
func scanQuoted(q string, i int, quote byte) (int, bool) {
	for j := i + 1; j < len(q); j++ {
		if q[j] != quote {
			continue
		}
		if j+1 < len(q) && q[j+1] == quote {
			j++
			continue
		}
		return j + 1, true
	}
	return 0, false
}

// scanPunct scans one punctuation or operator token at q[i].
func scanPunct(q string, i int) (int, sqlTokKind, bool) {
	next := byte(0)
	if i+1 < len(q) {
		next = q[i+1]
	}
	switch q[i] {
	case '(':
		return i + 1, tokLParen, true
	case ')':
		return i + 1, tokRParen, true
	case ';':
		return i + 1, tokSemi, true
	case ',':
		return i + 1, tokComma, true
	case '.':
		return i + 1, tokDot, true
	case '=':
		if next == '=' {
			return i + 2, tokEq, true
		}
		return i + 1, tokEq, true
	case '+', '*', '/', '%', '&', '~':
		return i + 1, tokOp, true
	case '|':
		if next == '|' {
			return i + 2, tokOp, true
		}
		return i + 1, tokOp, true
	case '-':
		if next == '>' {
			if i+2 < len(q) && q[i+2] == '>' {
				return i + 3, tokOp, true
			}
			return i + 2, tokOp, true
		}
		return i + 1, tokOp, true
	case '<':
		if next == '=' || next == '>' || next == '<' {
			return i + 2, tokOp, true
		}
		return i + 1, tokOp, true
	case '>':
		if next == '=' || next == '>' {
			return i + 2, tokOp, true
		}
		return i + 1, tokOp, true
	case '!':
		if next == '=' {
			return i + 2, tokOp, true
		}
	}
	return 0, 0, false
}

// lowerASCII writes the ASCII lower case of s into buf and returns it; it
// returns nil when s does not fit. Only ASCII letters fold, as in SQLite:
// "ſelect" or "ＳＥＬＥＣＴ" never equals "select".
func lowerASCII(buf []byte, s string) []byte {
	if len(s) > len(buf) {
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(s)]
}

// dequote returns the name inside a quoted identifier, or a bare word as is.
func dequote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch s[0] {
	case '"', '`':
		inner := s[1 : len(s)-1]
		if !containsByte(inner, s[0]) {
			return inner
		}
		out := make([]byte, 0, len(inner))
		for i := 0; i < len(inner); i++ {
			out = append(out, inner[i])
			if inner[i] == s[0] {
				i++ // a doubled quote
			}
		}
		return string(out)
	case '[':
		return s[1 : len(s)-1]
	}
	return s
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

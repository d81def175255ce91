package shell

import (
	"strings"
)

// A reader of git configuration files, as strict as git's own parser
// (config.c): it is used to find the keys with which a repository makes
// read-only git run programs (S8), so it must never see fewer keys than
// git does. Where it cannot follow the text it reports an error, and the
// caller treats the file as defining a program.

// gitConfigKeys calls fn with each key of a git configuration file (the
// section and name lowercased, the subsection as written: "diff.x.textconv")
// and its value; it returns false when the text is not valid git
// configuration as far as this reader can tell.
func gitConfigKeys(text string, fn func(key, val string)) bool {
	text = strings.TrimPrefix(text, "\ufeff")
	p := cfgParser{s: text}
	section := ""
	for {
		c, ok := p.next()
		if !ok {
			return true
		}
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			s, ok := p.header()
			if !ok {
				return false
			}
			section = s
		case isASCIILetter(c):
			if section == "" {
				return false // git: a key before any section is an error
			}
			name, val, ok := p.keyValue(c)
			if !ok {
				return false
			}
			fn(section+"."+name, val)
		default:
			return false
		}
	}
}

// cfgParser reads a configuration text byte by byte, folding \r\n into \n
// as git does.
type cfgParser struct {
	s string
	i int
}

func (p *cfgParser) next() (byte, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	c := p.s[p.i]
	p.i++
	if c == '\r' && p.i < len(p.s) && p.s[p.i] == '\n' {
		c = '\n'
		p.i++
	}
	return c, true
}

func (p *cfgParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

// header reads a section header after its '[': [section], [section "sub"]
// or the old [section.sub]. It returns "section" or "section.sub".
func (p *cfgParser) header() (string, bool) {
	var name strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", false
		case c == ']':
			return strings.ToLower(name.String()), name.Len() > 0
		case c == ' ' || c == '\t':
			return p.subsection(strings.ToLower(name.String()))
		case isASCIILetter(c) || '0' <= c && c <= '9' || c == '-' || c == '.':
			name.WriteByte(c)
		default:
			return "", false
		}
	}
}

// subsection reads ` "sub"]` after a section name.
func (p *cfgParser) subsection(section string) (string, bool) {
	c, ok := p.next()
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	if !ok || c != '"' || section == "" {
		return "", false
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", false
		case c == '\\':
			if c, ok = p.next(); !ok || c == '\n' {
				return "", false
			}
			sub.WriteByte(c)
		case c == '"':
			if c, ok = p.next(); !ok || c != ']' {
				return "", false
			}
			return section + "." + sub.String(), true
		default:
			sub.WriteByte(c)
		}
	}
}

// keyValue reads a key starting with first, and its value: none (a
// boolean true), or after '=' a value with quotes, escapes, comments and
// backslash-newline continuations.
func (p *cfgParser) keyValue(first byte) (name, val string, ok bool) {
	var b strings.Builder
	b.WriteByte(first)
	var c byte
	for {
		c, ok = p.next()
		if !ok || !(isASCIILetter(c) || '0' <= c && c <= '9' || c == '-') {
			break
		}
		b.WriteByte(c)
	}
	name = strings.ToLower(b.String())
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	if !ok || c == '\n' {
		return name, "", true
	}
	if c != '=' {
		return "", "", false
	}
	val, ok = p.value()
	return name, val, ok
}

// value reads a value up to the end of its line, as git's parse_value.
func (p *cfgParser) value() (string, bool) {
	var b strings.Builder
	quote, comment, space := false, false, 0
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quote {
				return "", false
			}
			return b.String(), true
		}
		switch {
		case comment:
			continue
		case !quote && (c == ' ' || c == '\t' || c == '\r'):
			if b.Len() > 0 {
				space++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '\\':
			c, ok = p.next()
			switch {
			case !ok:
				return "", false
			case c == '\n': // continuation
			case c == 't':
				b.WriteByte('\t')
			case c == 'b':
				b.WriteByte('\b')
			case c == 'n':
				b.WriteByte('\n')
			case c == '\\' || c == '"':
				b.WriteByte(c)
			default:
				return "", false
			}
		case '"':
			quote = !quote
		default:
			b.WriteByte(c)
		}
	}
}

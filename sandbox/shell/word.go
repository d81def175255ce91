package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Markers inside expanded words. Control characters never reach the
// analyser from the input (they are denied), so they cannot collide. Each
// marker is followed by text for display, which the path logic ignores.
const (
	mHome    = "\x00" // followed by "~" or "~user": a home directory
	mUnknown = "\x01" // a value not known statically ($X, $((…)))
	mChild   = "\x02" // a name below a directory (find's {}), never ".."
	mSubst   = "\x03" // the output of a command substitution
	mProc    = "\x04" // a process substitution's /dev/fd path
)

// field is one word of a command after expansion.
type field struct {
	s    string
	glob bool // contains unquoted glob characters
}

// maxFields bounds brace expansion of one command.
const maxFields = 1024

// isDynamic reports a value computed at run time: any marker but mHome.
func isDynamic(s string) bool { return hasByteIn(s, mUnknown[0], mProc[0]) }

// fromSubst reports a value holding a substitution's output.
func fromSubst(s string) bool { return hasByteIn(s, mSubst[0], mProc[0]) }

// hasByteIn reports whether s holds a byte in [lo, hi].
func hasByteIn(s string, lo, hi byte) bool { return indexByteIn(s, lo, hi) >= 0 }

// indexByteIn is the index of the first byte of s in [lo, hi], or -1.
func indexByteIn(s string, lo, hi byte) int {
	for i := 0; i < len(s); i++ {
		if lo <= s[i] && s[i] <= hi {
			return i
		}
	}
	return -1
}

// show renders an expanded word for messages: markers vanish, leaving
// their display text.
func show(s string) string {
	if !hasMarker(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == mChild[0]:
			b.WriteString("{}")
		case c > mProc[0]:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hasMarker reports whether s holds any of the markers above.
func hasMarker(s string) bool { return hasByteIn(s, mHome[0], mProc[0]) }

// quoteChars are the bytes display quotes a word for.
var quoteChars = func() (t [256]bool) {
	for _, c := range []byte(" \t\n'\"\\;&|<>()") {
		t[c] = true
	}
	return t
}()

func needsQuotes(s string) bool {
	for i := 0; i < len(s); i++ {
		if quoteChars[s[i]] {
			return true
		}
	}
	return false
}

func display(argv []field) string {
	if len(argv) == 1 {
		if s := show(argv[0].s); s != "" && !needsQuotes(s) {
			return s
		}
	}
	var b strings.Builder
	n := len(argv)
	for _, f := range argv {
		n += len(f.s)
	}
	b.Grow(n)
	for i, f := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		s := show(f.s)
		if s == "" || needsQuotes(s) {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		b.WriteString(s)
	}
	return b.String()
}

// wordFields expands w as bash would for a command argument (braces, tilde,
// known variables, field splitting of unquoted expansions) and appends the
// resulting fields to out.
func (a *analyzer) wordFields(orig *syntax.Word, out []field) []field {
	if !slices.ContainsFunc(orig.Parts, braceLit) {
		return a.partsFields(orig.Parts, out) // the common case: no copy
	}
	cp := *orig // SplitBraces replaces the parts; keep the tree walkable
	w := &cp
	syntax.SplitBraces(w)
	hasBrace := false
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			hasBrace = true
		}
	}
	if !hasBrace {
		return a.partsFields(w.Parts, out)
	}
	start := len(out)
	for bw, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(out) > maxFields {
			return append(out[:start], field{s: mUnknown + "{…}"})
		}
		out = a.partsFields(bw.Parts, out)
	}
	return out
}

// braceLit reports a literal that brace expansion may split.
func braceLit(p syntax.WordPart) bool {
	l, ok := p.(*syntax.Lit)
	return ok && strings.IndexByte(l.Value, '{') >= 0
}

// plainLit is the field of a word made of one literal that expands to
// itself: no escapes, no tilde (also none after name=).
func plainLit(parts []syntax.WordPart) (field, bool) {
	if len(parts) != 1 {
		return field{}, false
	}
	l, ok := parts[0].(*syntax.Lit)
	if !ok || l.Value == "" || l.Value[0] == '~' {
		return field{}, false
	}
	v, glob := l.Value, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			return field{}, false
		case '~':
			if v[i-1] == '=' {
				return field{}, false
			}
		case '*', '?', '[':
			glob = true
		}
	}
	return field{s: v, glob: glob}, true
}

// fieldBuilder accumulates the fields of one word.
type fieldBuilder struct {
	out  []field
	cur  strings.Builder
	has  bool // the current field exists (even if empty, as "" does)
	glob bool
}

func (b *fieldBuilder) add(s string) { b.cur.WriteString(s); b.has = true }

func (b *fieldBuilder) end() {
	if b.has {
		b.out = append(b.out, field{s: b.cur.String(), glob: b.glob})
	}
	b.cur.Reset()
	b.has, b.glob = false, false
}

// split adds an unquoted expansion, splitting it on IFS characters.
func (b *fieldBuilder) split(v, ifs string) {
	sep := func(r rune) bool { return strings.ContainsRune(ifs, r) }
	if sep(rune(v[0])) {
		b.end()
	}
	for i, part := range strings.FieldsFunc(v, sep) {
		if i > 0 {
			b.end()
		}
		b.add(part)
		b.glob = b.glob || strings.ContainsAny(part, "*?[")
	}
	if sep(rune(v[len(v)-1])) {
		b.end()
	}
}

func (a *analyzer) partsFields(parts []syntax.WordPart, out []field) []field {
	if f, ok := plainLit(parts); ok {
		return append(out, f)
	}
	b := fieldBuilder{out: out}
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 {
				v = a.tilde(v, a.tildeEnds(parts[1:]), &b)
			}
			for j := 0; j < len(v); j++ {
				c := v[j]
				switch {
				case c == '\\' && j+1 < len(v):
					j++
					b.cur.WriteByte(v[j])
				case c == '*' || c == '?' || c == '[':
					b.glob = true
					b.cur.WriteByte(c)
				default:
					b.cur.WriteByte(c)
				}
			}
			b.has = b.has || v != ""
		case *syntax.CmdSubst:
			if v, ok := a.echoSubst(p); ok {
				if v != "" {
					b.split(v, a.ifs())
				}
				continue
			}
			b.add(a.quotedPart(p))
		case *syntax.ParamExp:
			v, known := a.param(p)
			if !known {
				b.add(v)
				continue
			}
			if v != "" {
				b.split(v, a.ifs())
			}
		case *syntax.ExtGlob:
			b.add(p.Op.String() + p.Pattern.Value + ")")
			b.glob = true
		default:
			b.add(a.quotedPart(p))
		}
	}
	b.end()
	return b.out
}

// tilde expands a leading ~ (and ~ after name= in assignment-like words,
// as bash does outside POSIX mode) in the first literal of a word.
func (a *analyzer) tilde(v string, whole bool, b *fieldBuilder) string {
	pre := ""
	if i := strings.IndexByte(v, '='); i > 0 && i+1 < len(v) && v[i+1] == '~' && validName(v[:i]) {
		pre, v = v[:i+1], v[i+1:]
	}
	if !strings.HasPrefix(v, "~") {
		return pre + v
	}
	end := strings.IndexByte(v, '/')
	if end < 0 {
		if !whole {
			return pre + v
		}
		end = len(v)
	}
	user := v[1:end]
	var home string
	switch {
	case user == "":
		home = mHome + "~"
		if h, ok := a.st.vars["HOME"]; ok {
			home = h
		}
	case user == "+":
		home = a.pwd()
	case strings.ContainsAny(user, `\*?[`):
		return pre + v
	default:
		home = mHome + "~" + user
	}
	b.add(pre + home)
	return v[end:]
}

// tildeEnds reports whether a leading ~ ends where parts begin: nothing
// follows, or a quoted part starting with a slash.
func (a *analyzer) tildeEnds(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if p.Value != "" {
				return false
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return strings.HasPrefix(a.quotedPart(p), "/")
		default:
			return false
		}
	}
	return true
}

// echoSubst evaluates $(echo words…) with static words, a common way of
// spelling a command name.
func (a *analyzer) echoSubst(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	st := cs.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(ce.Assigns) > 0 ||
		len(ce.Args) == 0 || ce.Args[0].Lit() != "echo" {
		return "", false
	}
	var fs []field
	for _, w := range ce.Args[1:] {
		fs = a.wordFields(w, fs)
	}
	var words []string
	for i, f := range fs {
		if isDynamic(f.s) || f.glob || i == 0 && strings.HasPrefix(f.s, "-") {
			return "", false
		}
		words = append(words, f.s)
	}
	return strings.Join(words, " "), true
}

// quotedPart evaluates a part that is not split: quotes and substitutions.
func (a *analyzer) quotedPart(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.Lit:
		return p.Value
	case *syntax.SglQuoted:
		if p.Dollar {
			return ansiC(p.Value)
		}
		return p.Value
	case *syntax.DblQuoted:
		var sb strings.Builder
		for _, q := range p.Parts {
			if l, ok := q.(*syntax.Lit); ok {
				sb.WriteString(unescapeDQ(l.Value))
				continue
			}
			if pe, ok := q.(*syntax.ParamExp); ok {
				v, _ := a.param(pe)
				sb.WriteString(v)
				continue
			}
			sb.WriteString(a.quotedPart(q))
		}
		return sb.String()
	case *syntax.CmdSubst:
		if v, ok := a.echoSubst(p); ok {
			return v
		}
		return mSubst + "$(…)"
	case *syntax.ProcSubst:
		if p.Op == syntax.CmdOut {
			return mProc + ">(…)"
		}
		return mProc + "<(…)"
	case *syntax.ArithmExp:
		return mUnknown + "$((…))"
	case *syntax.ParamExp:
		v, _ := a.param(p)
		return v
	}
	return mUnknown + "…"
}

// wordString evaluates w without splitting or brace expansion, as in an
// assignment value or a redirection target.
func (a *analyzer) wordString(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var sb strings.Builder
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			v := l.Value
			if i == 0 {
				var b fieldBuilder
				v = a.tilde(v, len(w.Parts) == 1, &b)
				sb.WriteString(b.cur.String())
			}
			sb.WriteString(unescapeLit(v))
			continue
		}
		sb.WriteString(a.quotedPart(p))
	}
	return sb.String()
}

// param returns the value of a parameter expansion when it is known, or a
// marked placeholder when it is not.
func (a *analyzer) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil {
		return mUnknown + "${…}", false
	}
	name := p.Param.Value
	unknown := mUnknown + "$" + name
	if p.Excl || p.Length || p.Width || p.Slice != nil || p.Repl != nil || p.Index != nil || p.Names != 0 {
		return unknown, false
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
			syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		default:
			return unknown, false
		}
	}
	v, ok := a.st.vars[name]
	if !ok {
		switch name {
		case "HOME":
			v = mHome + "~"
		case "PWD":
			v = a.pwd()
		case "IFS":
			v = " \t\n"
		default:
			return unknown, false
		}
	}
	switch {
	case strings.ContainsAny(v, mUnknown+mSubst+mProc):
		return v, false
	case p.Exp == nil:
		return v, true
	case p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull ||
		p.Exp.Op == syntax.ErrorUnset || p.Exp.Op == syntax.ErrorUnsetOrNull:
		return v, v != ""
	}
	pat := a.wordString(p.Exp.Word)
	if isDynamic(pat) || strings.ContainsAny(pat, "[\\") {
		return unknown, false
	}
	return trimPattern(v, pat, p.Exp.Op), true
}

func (a *analyzer) ifs() string {
	if v, ok := a.st.vars["IFS"]; ok && !isDynamic(v) {
		return v
	}
	return " \t\n"
}

// pwd is the working directory when it is known for sure.
func (a *analyzer) pwd() string {
	if len(a.st.cwd) == 1 && a.st.cwd[0] != mUnknown {
		return a.st.cwd[0]
	}
	return mUnknown + "$PWD"
}

func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isASCIILetter(c) || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

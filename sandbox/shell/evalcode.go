package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code hidden in a value that bash evaluates again (T21): when the value
// is known, the command substitutions in it are analysed like any other,
// so that x='a[$(rm -rf ~)]'; echo $((x)) is denied as rm -rf ~ is, not
// only asked.

// hiddenCode analyses the code in text, arithmetic or prompt text bash
// evaluates again, and in the known values of the variables it names
// (each variable once).
func (a *analyzer) hiddenCode(text, who string) {
	seen := map[string]bool{}
	var walk func(text string)
	walk = func(text string) {
		if hasMarker(text) {
			return
		}
		if strings.ContainsAny(text, "$`") {
			a.substsOf(text, who)
		}
		for _, name := range arithNames(text) {
			if v, ok := a.st.vars[name]; ok && !seen[name] {
				seen[name] = true
				walk(v)
			}
		}
	}
	walk(text)
}

// arithNames lists the words in text that name variables.
func arithNames(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && (text[j] == '_' || isASCIILetter(text[j]) || j > i && isDigit(text[j])) {
			j++
		}
		if j == i {
			i++
			continue
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// substsOf parses text as the operand of an arithmetic command and
// analyses its command substitutions; text that does not parse is left to
// the ask already noted.
func (a *analyzer) substsOf(text, who string) {
	if len(text) > a.maxBytes || a.depth > maxShellDepth {
		return
	}
	parser := parserPool.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader("(( "+text+" ))\n"), "")
	if err != nil {
		f, err = parser.Parse(strings.NewReader(": "+text+"\n"), "")
	}
	parserPool.Put(parser)
	if err != nil {
		return
	}
	a.depth++
	syntax.Walk(f, func(n syntax.Node) bool {
		if cs, ok := n.(*syntax.CmdSubst); ok {
			a.subshell(cs.Stmts, ioCtx{})
			return false
		}
		return true
	})
	a.depth--
}

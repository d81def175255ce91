package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command substitutions that count as numbers in arithmetic (T21). Bash
// evaluates a substitution's output again as arithmetic, where every name
// is a variable evaluated in turn and a subscript runs code: the output
// must hold digits and operators only, never a name or a bracket. So only
// a few commands with options that print numbers count: wc reading stdin,
// nproc, date with a numeric +FORMAT, id -u/-g/-G and getconf of a numeric
// limit; and no redirection may mix error messages (words) into the output.

// numericSubst reports a command substitution whose output holds only
// numbers, possibly at the end of a pipeline.
func numericSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 || !quietRedirs(cs.Stmts[0].Redirs) {
		return false
	}
	st := cs.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		st = b.Y
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(ce.Assigns) > 0 || !quietRedirs(st.Redirs) {
		return false
	}
	var args []string
	for _, w := range ce.Args {
		if !simpleWord(w) {
			return false
		}
		args = append(args, unquoteSimple(w))
	}
	if check := numericCmds[args[0]]; check != nil {
		return check(args[1:])
	}
	return false
}

// numericCmds check the arguments of the commands that print numbers.
var numericCmds = map[string]func([]string) bool{
	"wc":      func(args []string) bool { return shortOrLong(args, "lcwmL", "lines bytes chars words max-line-length") },
	"id":      idNumeric,
	"nproc":   nprocNumeric,
	"date":    dateNumeric,
	"getconf": getconfNumeric,
}

// quietRedirs reports redirections that put nothing but the command's
// own output on stdout: input, and errors thrown away.
func quietRedirs(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		case syntax.RdrOut, syntax.AppOut:
			if r.N == nil || r.N.Value != "2" || r.Word == nil || r.Word.Lit() != "/dev/null" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// unquoteSimple is the value of a word of literals and plain quotes.
func unquoteSimple(w *syntax.Word) string {
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				sb.WriteString(q.(*syntax.Lit).Value)
			}
		}
	}
	return sb.String()
}

// shortOrLong reports arguments that are all options among short (in
// clusters) and long: no operand, no other option.
func shortOrLong(args []string, short, long string) bool {
	for _, s := range args {
		switch {
		case strings.HasPrefix(s, "--"):
			if !inFields(long, s[2:]) {
				return false
			}
		case len(s) < 2 || s[0] != '-' || strings.Trim(s[1:], short) != "":
			return false
		}
	}
	return true
}

func inFields(list, s string) bool {
	for _, f := range strings.Fields(list) {
		if f == s {
			return true
		}
	}
	return false
}

// nprocNumeric: nproc [--all] [--ignore=N].
func nprocNumeric(args []string) bool {
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case s == "--all":
		case s == "--ignore" && i+1 < len(args) && allDigits(args[i+1]):
			i++
		case strings.HasPrefix(s, "--ignore=") && allDigits(s[len("--ignore="):]):
		default:
			return false
		}
	}
	return true
}

// dateNumeric: date with a +FORMAT of numeric conversions, in UTC or of a
// given date or file.
func dateNumeric(args []string) bool {
	format := false
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case strings.HasPrefix(s, "+"):
			if format || !numericFormat(s[1:]) {
				return false
			}
			format = true
		case s == "-u" || s == "--utc" || s == "--universal":
		case (s == "-d" || s == "-r") && i+1 < len(args):
			i++
		case strings.HasPrefix(s, "--date=") || strings.HasPrefix(s, "--reference="):
		default:
			return false
		}
	}
	return format
}

// numericFormat reports a date format whose conversions all print digits
// (and whose other characters are digits or operators).
func numericFormat(f string) bool {
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			if !isDigit(c) && strings.IndexByte(" +-:./", c) < 0 {
				return false
			}
			continue
		}
		for i+1 < len(f) && (strings.IndexByte("-_0^#", f[i+1]) >= 0 || isDigit(f[i+1])) {
			i++
		}
		if i+1 >= len(f) || strings.IndexByte("sYymdHMSjNuwCeklIgGVUWqz%", f[i+1]) < 0 {
			return false
		}
		i++
	}
	return true
}

// getconfNumeric: getconf of one numeric system limit.
func getconfNumeric(args []string) bool {
	if len(args) != 1 {
		return false
	}
	switch strings.TrimPrefix(args[0], "_") {
	case "NPROCESSORS_ONLN", "NPROCESSORS_CONF", "PAGESIZE", "PAGE_SIZE", "ARG_MAX", "LONG_BIT", "CLK_TCK",
		"OPEN_MAX", "CHILD_MAX", "LINE_MAX", "PHYS_PAGES", "AVPHYS_PAGES":
		return true
	}
	return false
}

// numericWord reports a word that is one such substitution, quoted or not.
func numericWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	p := w.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	cs, ok := p.(*syntax.CmdSubst)
	return ok && numericSubst(cs)
}

// idNumeric: id -u, -g or -G (with -r): numbers, never names.
func idNumeric(args []string) bool {
	if !shortOrLong(args, "ugGr", "user group groups real") {
		return false
	}
	for _, s := range args {
		if s != "-r" && s != "--real" {
			return true
		}
	}
	return false
}

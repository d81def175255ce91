package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// Second evaluation (T21): bash evaluates some values again as code.
// Arithmetic ($((…)), ((…)), let, for ((…)), [[ a -eq b ]], array
// subscripts, ${x:offset:length}) evaluates the value of every variable in
// it as arithmetic, where an array subscript runs command substitutions:
// x='a[$(id)]'; echo $((x)) runs id. So do the names handed to printf -v,
// read, declare, getopts, unset, test -v and wait -p, the indirection
// ${!x}, the prompt expansion ${x@P}, and the callbacks of mapfile -C and
// compgen -C. Such a value is code unless it is proven a literal number
// (arithmetic) or a plain name (names): it asks.

const ruleEvalAgain = "shell.second_eval"

// mArith is the value of an arithmetic expansion: always a number.
const mArith = mUnknown + "$((…))"

func (a *analyzer) evalAgain(who, what string) {
	a.note(sandbox.Ask, ruleEvalAgain, who, what+
		" is evaluated again as code by bash and is not proven a literal number or plain name")
}

// evalNode checks a node of the syntax tree that evaluates values again;
// substs calls it for every node it walks.
func (a *analyzer) evalNode(n syntax.Node, who string) {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		a.arith(n.X, who)
	case *syntax.ArithmCmd:
		a.arith(n.X, who)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			a.arith(x, who)
		}
	case *syntax.CStyleLoop:
		a.arith(n.Init, who)
		a.arith(n.Cond, who)
		a.arith(n.Post, who)
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if w, ok := x.(*syntax.Word); ok {
					a.arith(w, who)
				}
			}
		}
	case *syntax.UnaryTest:
		if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar) {
			a.nameArg(a.wordString(w), who)
		}
	case *syntax.ParamExp:
		a.paramEval(n, who)
	}
}

// paramEval checks the parts of a parameter expansion bash evaluates:
// subscripts and slices as arithmetic, ${!x} and ${x@P} by x's value.
func (a *analyzer) paramEval(p *syntax.ParamExp, who string) {
	if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
		a.arith(p.Index, who)
	}
	if p.Slice != nil {
		a.arith(p.Slice.Offset, who)
		a.arith(p.Slice.Length, who)
	}
	if p.Param == nil {
		return
	}
	v, set := a.st.vars[p.Param.Value]
	switch {
	case p.Excl && p.Names == 0 && p.Index == nil: // ${!x}: x's value names the variable
		switch {
		case set:
			a.nameArg(v, who)
		case untrackedVar(p.Param.Value):
			a.evalAgain(who, "${!"+p.Param.Value+"}")
		}
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && strings.Contains(p.Exp.Word.Lit(), "P"):
		if set && strings.ContainsAny(v, "$`\\"+mUnknown+mSubst+mProc) || !set && untrackedVar(p.Param.Value) {
			a.evalAgain(who, "${"+p.Param.Value+"@P}")
			a.hiddenCode(v, who)
		}
	}
}

// arith checks an arithmetic expression.
func (a *analyzer) arith(x syntax.ArithmExpr, who string) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		a.arith(x.X, who)
		a.arith(x.Y, who)
	case *syntax.UnaryArithm:
		a.arith(x.X, who)
	case *syntax.ParenArithm:
		a.arith(x.X, who)
	case *syntax.Word:
		if v, ok := a.arithWord(x); !ok || !a.arithText(v, 0) {
			a.evalAgain(who, "the arithmetic operand "+show(a.wordString(x)))
			if ok {
				a.hiddenCode(v, who)
			}
		}
	}
}

// arithWord is the text an operand puts into an arithmetic expression,
// with numbers for the expansions that always give one; false when it is
// not known.
func (a *analyzer) arithWord(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			v, ok := a.arithWord(&syntax.Word{Parts: p.Parts})
			if !ok {
				return "", false
			}
			sb.WriteString(v)
		case *syntax.ArithmExp:
			sb.WriteString("0")
		case *syntax.CmdSubst:
			if !numericSubst(p) {
				return "", false
			}
			sb.WriteString("0")
		case *syntax.ParamExp:
			v, ok := a.paramArith(p)
			if !ok {
				return "", false
			}
			sb.WriteString(v)
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// paramArith is the text a parameter expansion puts into arithmetic.
func (a *analyzer) paramArith(p *syntax.ParamExp) (string, bool) {
	if p.Length {
		return "0", true
	}
	if p.Param == nil || p.Excl || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return "", false
	}
	name := p.Param.Value
	v, set := a.st.vars[name]
	switch {
	case numericParam(name):
		return "0", true
	case !set && (untrackedVar(name) || !a.envArith()):
		return "", false
	case !set: // the environment, which the command line cannot set
		if p.Exp != nil && p.Exp.Word != nil && (p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull) {
			return a.wordString(p.Exp.Word), true
		}
		return "0", true
	case v == mArith:
		return "0", true
	}
	v, known := a.param(p)
	return v, known && !isDynamic(v)
}

// arithText reports whether arithmetic text is safe to evaluate: numbers,
// operators and names of variables whose values are safe in turn; no
// subscripts, expansions or quotes.
func (a *analyzer) arithText(s string, depth int) bool {
	if depth > 8 || hasMarker(s) {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '_' || isASCIILetter(c):
			j := i
			for j < len(s) && (s[j] == '_' || isASCIILetter(s[j]) || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			if (i == 0 || s[i-1] != '#' && !isDigit(s[i-1])) && !a.nameArith(s[i:j], depth+1) {
				return false
			}
			i = j
		case isDigit(c) || strings.IndexByte(" \t\n+-*/%<>=!&|^~?:,()#", c) >= 0:
			i++
		default:
			return false
		}
	}
	return true
}

// nameArith reports whether a variable named in arithmetic holds a safe
// value: a number, safe text, or (unset here) one from the environment.
func (a *analyzer) nameArith(name string, depth int) bool {
	v, set := a.st.vars[name]
	switch {
	case !set:
		return !untrackedVar(name) && a.envArith()
	case v == mArith:
		return true
	}
	return a.arithText(v, depth)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// numericParam reports the special parameters that always hold a number.
func numericParam(name string) bool {
	switch name {
	case "#", "?", "$", "!", "0", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "EPOCHSECONDS", "BASHPID",
		"PPID", "UID", "EUID", "OPTIND", "SHLVL", "HISTCMD":
		return true
	}
	return false
}

// untrackedVar reports variables bash or a builtin sets from data the
// analyser does not see: the last argument ($_), read's REPLY, getopts'
// OPTARG, a [[ =~ ]] match, the -c string, the directory cd changed to
// (PWD, a name from the workspace), and the positional parameters (set --).
func untrackedVar(name string) bool {
	switch name {
	case "_", "REPLY", "OPTARG", "MAPFILE", "BASH_REMATCH", "BASH_COMMAND", "BASH_ARGV", "BASH_ARGV0",
		"BASH_SOURCE", "BASH_EXECUTION_STRING", "FUNCNAME", "DIRSTACK", "COPROC", "READLINE_LINE",
		"COMP_LINE", "COMP_WORDS", "PWD", "OLDPWD", "@", "*":
		return true
	}
	return len(name) == 1 && '1' <= name[0] && name[0] <= '9'
}

// nameArg checks a variable name that bash assigns or tests: a subscript
// in it is evaluated as arithmetic.
func (a *analyzer) nameArg(s, who string) {
	if isDynamic(s) {
		a.evalAgain(who, "the variable name "+show(s))
		return
	}
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") || !validName(s[:i]) {
		return // a plain name, or not one bash accepts
	}
	if sub := s[i+1 : len(s)-1]; sub != "@" && sub != "*" && !a.arithText(sub, 0) {
		a.evalAgain(who, "the subscript of "+show(s))
		a.hiddenCode(sub, who)
	}
}

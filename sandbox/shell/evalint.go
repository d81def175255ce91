package shell

import (
	"maps"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Assignments bash evaluates as arithmetic (T21): every value assigned to
// a variable with the integer attribute (declare -i, typeset -i, local -i)
// and to the special variables whose assignment bash evaluates (RANDOM,
// OPTIND, …), by an assignment, a loop or a builtin (read, printf -v,
// mapfile); and the indices of an array literal, z=([i]=v). A variable
// the line does not set comes from the environment or bash: its value may
// name variables in turn, so it is safe only while every variable the
// line set holds a value safe to evaluate.

// specialInt reports the special variables bash evaluates on assignment.
func specialInt(name string) bool {
	switch name {
	case "RANDOM", "SRANDOM", "OPTIND", "OPTERR", "HISTCMD", "SECONDS", "LINENO", "EPOCHSECONDS":
		return true
	}
	return false
}

// intVar reports a variable whose assigned values bash evaluates.
func (a *analyzer) intVar(name string) bool { return a.st.ints[name] || specialInt(name) }

// markInt records that declare -i gave name the integer attribute.
func (a *analyzer) markInt(name string) {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	ints := maps.Clone(a.st.ints)
	if ints == nil {
		ints = map[string]bool{}
	}
	ints[name] = true
	a.st.ints = ints
}

// assignEval checks the parts of an assignment bash evaluates: the
// indices of an array literal, and every value given to an integer
// variable.
func (a *analyzer) assignEval(as *syntax.Assign) {
	name := as.Name.Value
	integer := a.intVar(name)
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				a.arith(e.Index, name)
			}
			if integer && e.Value != nil {
				a.arith(e.Value, name)
			}
		}
	}
	if integer && as.Value != nil {
		a.arith(as.Value, name)
	}
}

// loopInt checks the values a for loop assigns to an integer variable.
func (a *analyzer) loopInt(name string, items []field, static bool) {
	if !a.intVar(name) {
		return
	}
	for _, it := range items {
		if !static || !a.arithText(it.s, 0) {
			a.evalAgain("for "+name, "a value of the integer variable "+name)
			return
		}
	}
}

// setUnknown records that a builtin assigned name a value the analyser
// does not know (read, printf -v, getopts, mapfile): evaluated again when
// the variable is an integer, and checked like any assignment to a
// variable that steers the shell or the programs it runs (PS4, PATH).
func (a *analyzer) setUnknown(name, who string) {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	if !validName(name) {
		return
	}
	val := mUnknown + "$" + name
	if a.intVar(name) {
		a.evalAgain(who, "a value read into the integer variable "+name)
	}
	a.checkEnv(name, val, false)
	a.setVar(name, val)
}

// envArith reports whether a variable the line does not set is safe in
// arithmetic: its unknown value may name any variable, so every variable
// the line set must hold a value that evaluates no subscript or
// expansion.
func (a *analyzer) envArith() bool {
	for _, v := range a.st.vars {
		if v != mArith && (hasMarker(v) || strings.ContainsAny(v, "[$`")) {
			return false
		}
	}
	return true
}

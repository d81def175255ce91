package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A generator of second-order constructs (T21): a payload that runs
// `touch PWNED` when bash evaluates it again, brought into a variable by a
// source, used by a context that may evaluate it, inside a wrapper. Lines
// are built only from these fragments, so running them can do no more
// than create PWNED in the workspace.

// t21Payloads are the values: most run touch PWNED when evaluated as
// arithmetic, a subscript, a prompt or a command; the last ones are safe.
var t21Payloads = []string{
	`a[$(touch PWNED)]`, `a[$(touch PWNED)]+1`, "1+b[`touch PWNED`]", `$(touch PWNED)`, `touch PWNED`,
	`y[$(touch PWNED)0]`, `m[x$(touch PWNED)]`, `1`, `x`, `16#1f`,
}

// t21Sources put the payload ({Q}: quoted; the files f and VERSION hold it
// too) into x; "{C}" marks where a source wraps the context itself.
var t21Sources = []string{
	"x={Q}; {C}", "printf -v x %s {Q}; {C}", "read -r x <<< {Q}; {C}", "read -r x < f; {C}",
	"x=$(cat f); {C}", "for x in {Q}; do {C}; done", "declare x={Q}; {C}", "set -- {Q}; x=$1; {C}",
	"x=$(<f); {C}", "mapfile -t arr < f; x=${arr[0]}; {C}", "y={Q}; x=y; {C}", "IFS= read -r x < VERSION; {C}",
	"x=$(head -n1 f); {C}", "while read -r x; do {C}; done < f", "x=${1:-$(cat f)}; {C}",
}

// t21Contexts use x (or the files) where bash may evaluate it again.
var t21Contexts = []string{
	"echo $(( x ))", "echo $(( $x ))", `echo "$(( x + 1 ))"`, "echo $[x]", "(( x ))", "((y = x))", "let x",
	`let "y=x"`, "[[ $x -eq 1 ]]", "[[ x -lt 2 ]]", "[[ 1 -ne $x ]]", "declare -i y=x", "declare -i y=$x",
	"declare -i y; y=$x", "declare -i y; y=x", "declare -i y; y+=$x", "declare -i y; read y < f",
	"declare -i y; y=$(cat f)", "declare -i y; printf -v y %s \"$x\"", "typeset -i y=$x", "declare -ai z; z=($x)",
	"declare -ai z; z[0]=$x", "a[x]=1", "a[$x]=1", "echo ${a[x]}", `echo "${a[$x]}"`, "echo ${#a[x]}",
	"s=abcdef; echo ${s:x}", "s=abcdef; echo ${s:1:x}", "set -- a b; echo ${@:x}", "z=([x]=1)", "z=([$x]=1)",
	"declare -a z=([x]=1)", `printf -v "a[$x]" 1`, `read "a[$x]" <<< 1`, `declare "a[$x]=1"`, `test -v "a[$x]"`,
	`[ -v "a[$x]" ]`, "[[ -v a[$x] ]]", `unset "a[$x]"`, "echo ${x@P}", "echo \"${x@P}\"", "echo ${!x}",
	`mapfile -C "$x" -c 1 z < f`, `compgen -W "$x" y`, `compgen -C "$x" y`, "for ((i = 0; i < x; i++)); do :; done",
	`getopts a "a[$x]"`, `printf -v y %d "$x"`, `test "$x" -eq 1`, `[ "$x" -gt 0 ]`, `printf '%d\n' "$x"`,
	"echo $(( $(cat f) ))", "[[ $(cat VERSION) -ge 2 ]]", "echo $(( $(cat f | wc -l) ))", "echo $(( $(wc -l < f) ))",
	"echo $(( $(date +{Q}) ))", "echo $(( $(echo {Q}) ))", "echo $(( $(printf %s {Q}) ))", "echo $(( $(head -n1 f) ))",
	"echo $(( $(getconf GNU_LIBC_VERSION) ))", "echo $(( $(date) ))", "echo $(( $(id) ))", "echo \"$x\"",
	"RANDOM=$x", "SECONDS=$x", "OPTIND=$x", "LINENO=$x", "COLUMNS=$x; echo $((COLUMNS))", "PS4=$x; set -x; :",
	"read PS4 < f; set -x; :", "export y=$x; echo $((y))", "case 1 in $((x))) ;; esac", "echo ${a[@]:x}",
	"shift $x", "echo ${x:$x}", "local -i y=$x", "z[x]+=1", `eval "echo $x"`, "echo $(( ${x:-0} ))",
	`declare "z=([$x]=1)"`, `y=1; declare "y=$x"; echo $((y))`, "C=$x; echo $((LC_ALL))", "C=x; echo $((LC_ALL + 1))",
	"cd d/* && echo $(( ${PWD##*/_} ))", "declare -i y; for y in $x; do :; done", "declare -i y; export y=$x",
}

// t21Wrappers put the line in other syntax.
var t21Wrappers = []string{
	"{L}", "( {L} )", "{ {L}; }", "bash -c {LQ}", "if true; then {L}; fi", "echo \"$({L})\"", "{L} | cat",
	"true && {L}", "f=1; {L}", "sh -c {LQ}",
}

// genT21 builds the line that the bytes choose (source, context, payload,
// wrapper, and a second context when there is a fifth byte).
func genT21(b []byte) (line, payload string) {
	pick := func(i int, list []string) string {
		if i < len(b) {
			return list[int(b[i])%len(list)]
		}
		return list[0]
	}
	payload = pick(2, t21Payloads)
	ctx := pick(1, t21Contexts)
	if len(b) > 4 {
		ctx += "; " + pick(4, t21Contexts)
	}
	return t21Line(pick(0, t21Sources), ctx, payload, pick(3, t21Wrappers)), payload
}

// t21Line puts the pieces together.
func t21Line(src, ctx, payload, wrap string) string {
	q, err := syntax.Quote(payload, syntax.LangBash)
	if err != nil {
		q = "''"
	}
	l := strings.ReplaceAll(strings.ReplaceAll(src, "{C}", ctx), "{Q}", q)
	lq, err := syntax.Quote(l, syntax.LangBash)
	if err != nil {
		lq = "''"
	}
	return strings.ReplaceAll(strings.ReplaceAll(wrap, "{LQ}", lq), "{L}", l)
}

// t21Corpus is the deterministic corpus of the real-bash test: every
// context with the first source and payload, with the value read from a
// file, and in turn with each other source, payload and wrapper.
func t21Corpus() [][2]string {
	var out [][2]string
	add := func(src, ctx, payload, wrap string) {
		out = append(out, [2]string{t21Line(src, ctx, payload, wrap), payload})
	}
	for i, ctx := range t21Contexts {
		add(t21Sources[0], ctx, t21Payloads[0], t21Wrappers[0])
		add(t21Sources[3], ctx, t21Payloads[0], t21Wrappers[0])
		add(t21Sources[i%len(t21Sources)], ctx, t21Payloads[0], t21Wrappers[0])
		add(t21Sources[0], ctx, t21Payloads[i%len(t21Payloads)], t21Wrappers[0])
		add(t21Sources[0], ctx, t21Payloads[0], t21Wrappers[i%len(t21Wrappers)])
	}
	return out
}

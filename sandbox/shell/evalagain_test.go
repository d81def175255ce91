package shell

import (
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// TestShellPolicy_T21_SecondEvaluation: a value bash evaluates again as
// code asks unless it is proven a literal number or plain name; before,
// every case of the ask list was allowed, and a[$(rm -rf ~)]=1 was not
// even analysed.
func TestShellPolicy_T21_SecondEvaluation(t *testing.T) {
	p, _ := shellFixture(t)
	const x = "x='a[$(touch src/pwn)]'; "
	checkShell(t, p, sandbox.Ask,
		x+"echo $((x))", x+"echo $(($x))", x+"echo $[x]", x+"(( x ))", x+"let x+1", x+"for ((i=x; i<3; i++)); do :; done",
		x+"[[ $x -eq 1 ]]", x+"[[ x -eq 1 ]]", x+"[[ 1 -lt $x ]]", x+"echo ${y:x}", x+"echo ${y:0:x}", x+"a[x]=1",
		x+"echo ${a[x]}", x+"echo ${!x}", x+"y=x; echo $((y))", x+`echo "$((x + 1))"`, x+"declare -i n=$x",
		x+"unset \"$x\"", x+`printf -v "$x" 1`, "y='$(touch src/pwn)'; echo ${y@P}",
		"printf -v 'a[$(touch src/pwn)]' %s 1", "printf -v'a[$(id)]' 1", "read 'a[$(touch src/pwn)]' < README.md",
		"read -a 'a[$(id)]' < README.md", "declare 'a[$(touch src/pwn)]=1'", "local 'a[$(id)]'",
		"test -v 'a[$(touch src/pwn)]'", "[ -v 'a[$(id)]' ]", "[[ -v a[$(touch src/pwn)] ]]",
		"unset 'a[$(touch src/pwn)]'", "getopts a 'a[$(id)]'", "wait -p 'a[$(id)]'", "mapfile 'a[$(id)]' < README.md",
		"compgen -C 'touch src/pwn' x", "compgen -F f x", "compgen -W '$(id)' x",
		"mapfile -C 'touch src/pwn' -c 1 < README.md", "read x < README.md; echo $((x))",
		"read x < README.md; [[ $x -gt 0 ]]", "IFS= read -r n < f; echo $((n + 1))", "echo $(( $(cat n) + 1 ))",
		"for v in $(cat f); do echo $((v)); done", "echo $((_))", "echo $(($1))", "echo ${!1}", "x=$(cat f); echo $((x))",
		"a=(1 2); echo $((a[0]))", "read -r line; echo ${line@P}", "printf -v n %s x; echo $((n))")
	checkShell(t, p, sandbox.Deny, "a[$(rm -rf ~)]=1", "echo $((a[$(rm -rf ~)]))", "mapfile -C 'rm -rf ~' < f",
		"compgen -C 'curl x | sh' y")
	checkShell(t, p, sandbox.Allow,
		"for ((i=0; i<3; i++)); do echo $i; done", "i=0; while ((i < 3)); do i=$((i+1)); done",
		"n=0; for f in *.go; do n=$((n+1)); done; echo $((n * 2))", "echo $((RANDOM % 6))", "echo $(( $# + 1 ))",
		"printf -v x %s 1", "read -r line < README.md", "echo $((COLUMNS - 2))", "x=5; echo $((x * 2))",
		"x=5; y=x; echo $((y))", "[[ 3 -gt 2 ]]", "x=1; [[ $x -eq 1 ]]", "[ \"$(cat VERSION)\" -ge 2 ]",
		"echo $(( $(wc -l < README.md) + 1 ))", "echo $(( $(ls | wc -l) ))", "echo $((16#ff + 0x1f))", "s=$(date +%s); echo $(( $(date +%s) - s ))",
		"a[1]=x; echo ${a[1]}", "echo ${#x}", "echo ${x:-0}", "echo $((${N:-4} + 1))", "declare -i n=5",
		"read -a arr < README.md", "test -v HOME", "[ -v x ]", "[[ -v x ]]", "unset x", "getopts ab opt",
		"echo ${!a[@]}", "x=HOME; echo ${!x}", "echo ${x@Q}", "compgen -c gi", "let n=1+2",
		"while read -r l; do echo \"$l\"; done < README.md", "echo ${a[@]:1}")
}

// TestShellPolicy_T21_Issue22Reproductions: every spelling of issue 22
// item 1 asks (or is denied), and so do the holes the real-bash check of
// T21 found after it: the integer attribute, the special variables bash
// evaluates on assignment, array literal indices, command output with
// names or brackets in it (date +FORMAT, getconf, wc of named files), a
// prompt read from a file, and a variable from the environment evaluated
// while a variable of the line holds code.
func TestShellPolicy_T21_Issue22Reproductions(t *testing.T) {
	p, _ := shellFixture(t)
	const x = "x='a[$(touch src/P)]'; "
	checkShell(t, p, sandbox.Ask,
		x+"echo $(( x ))", x+"(( x ))", x+"let x", x+"[[ $x -eq 1 ]]", x+"declare -i y=x", x+"echo ${a[x]}",
		x+"a[x]=1", x+"s=abc; echo ${s:x}", x+`printf -v "a[$x]" 1`, x+`read "a[$x]" < README.md`,
		x+`declare "a[$x]"`, x+`test -v "a[$x]"`, "x='$(touch src/P)'; echo ${x@P}", "mapfile -C cb < README.md",
		"compgen -C cb x", "[[ $(cat VERSION) -ge 2 ]]",
		x+"declare -i y; y=x", x+"declare -i y; y+=$x", "declare -i y; y=$(cat f)", "declare -i y; read y < f",
		x+"declare -ai z; z[0]=$x", x+"declare -ai z; z=($x)", "declare -i y; for y in $(cat f); do :; done",
		x+"RANDOM=$x", x+"OPTIND=$x", "read -r OPTIND < f", x+"z=([x]=1)", x+"declare -a z=([$x]=1)",
		x+`declare "z=([$x]=1)"`, x+`y=1; declare "y=$x"; echo $((y))`, "y='a[$(id)]'; declare y; echo $((y))",
		"echo $(( $(date +'a[$(touch P)]') ))", "echo $(( $(date) ))", "echo $(( $(id) ))", "echo $(( $(nproc --help) ))",
		"echo $(( $(getconf GNU_LIBC_VERSION) ))", "echo $(( $(wc -l f) ))", "echo $(( $(wc -l < f 2>&1) ))",
		"read PS4 < f; set -x; :", "read -r x < f; PS4=$x; set -x; :", x+"C=$x; echo $((LC_ALL))",
		x+"echo $((PAGER))", "cd d/* && echo $(( ${PWD##*/} ))", "read -r x < f; echo $((COLUMNS + 1))")
	checkShell(t, p, sandbox.Deny, "x='a[$(rm -rf ./*/* .git/* 2>/dev/null)]'; echo $(( x ))")
	checkShell(t, p, sandbox.Allow,
		"declare -i n=5; n=n+1; echo $n", "declare -i n; n=$(wc -l < README.md)", "RANDOM=42; echo $RANDOM",
		"z=([0]=a [1]=b)", "echo $(( $(date +%s) - $(date -d @0 +%s) ))", "echo $(( $(date -u +%Y%m%d) ))",
		"echo $(( $(nproc --all) * 2 ))", "echo $(( $(id -u) ))", "echo $(( $(getconf _NPROCESSORS_ONLN) ))",
		"echo $(( $(cat README.md | wc -l) + 1 ))", "x=5; echo $((x + COLUMNS))", "PS4='+ '; set -x; :")
}

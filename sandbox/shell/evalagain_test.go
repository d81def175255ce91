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

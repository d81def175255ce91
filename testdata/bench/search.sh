#!/usr/bin/env bash
# search.sh compares agentls' search tool with ripgrep and git grep on the
# generated 30,000-file tree of testdata/searchgen (issue 27 item 1): for a
# literal with no hit, an anchored regular expression and a literal found
# only in the last directory walked, it prints the median wall time of
# RUNS interleaved runs of each, search's ratio to rg (the target is at
# most 1.5x for the first two), and checks that search lists the same
# matches as rg (every page of them, through offset).
#
#	testdata/bench/search.sh [RUNS]     (default 9; TREE=dir to keep the tree elsewhere)
#
# search runs as a user would call it, `agentls call search JSON` (process
# start included; rg and git grep pay theirs too). These machines are
# shared: the load is printed before and after.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-9}
tree=${TREE:-${TMPDIR:-/tmp}/agentls-search-tree}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/" ./cmd/agentls
if [ ! -f "$tree/d099/s14/f019.go" ]; then
	rm -rf "$tree"
	go run ./testdata/searchgen -out "$tree"
fi
[ -d "$tree/.git" ] || git -C "$tree" init -q # rg honours .gitignore only in a repository
have_rg=1
command -v rg >/dev/null || { have_rg=0; echo "rg not installed: its column is skipped"; }

ms() { # command... → wall milliseconds, output discarded
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ours() { (cd "$tree" && "$bin/agentls" call search "$1"); }

# all_ours PATTERN → every match as path:line, paging with offset.
all_ours() {
	local off=0 out
	while :; do
		out=$(ours "$(jq -nc --arg p "$1" --argjson o "$off" '{pattern: $p, offset: $o}')" | jq -r .content)
		grep -v '^(' <<<"$out" | grep -v '^no matches' | cut -d: -f1,2 || true
		off=$(sed -n 's/^(more matches cut after [0-9]*: .*offset=\([0-9]*\))$/\1/p' <<<"$out")
		[ -n "$off" ] || break
	done
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  cores: $(nproc)  files: $(find "$tree" -type f -not -path '*/.git/*' | wc -l)"
printf '%-22s %10s %10s %10s %8s %s\n' case "search ms" "rg ms" "git grep" ratio "same matches as rg"
status=0
bench() { # name pattern target-ratio
	local name=$1 pat=$2 target=$3 a=() r=() g=() i json same ratio verdict
	json=$(jq -nc --arg p "$pat" '{pattern: $p}')
	for ((i = 0; i < runs; i++)); do
		a+=("$(ms ours "$json")")
		[ $have_rg = 0 ] || r+=("$(ms rg -n --no-heading -e "$pat" "$tree")")
		g+=("$(ms git -C "$tree" grep --untracked -I -n -E -e "$pat")")
	done
	local ma mr mg
	ma=$(printf '%s\n' "${a[@]}" | median)
	mg=$(printf '%s\n' "${g[@]}" | median)
	mr=- ratio=- same=- verdict=""
	if [ $have_rg = 1 ]; then
		mr=$(printf '%s\n' "${r[@]}" | median)
		ratio=$(awk -v a="$ma" -v r="$mr" 'BEGIN { printf "%.2f", a / (r > 0 ? r : 1) }')
		if diff <(all_ours "$pat" | sort) <(cd "$tree" && rg -n --no-heading -e "$pat" | cut -d: -f1,2 | sort) >/dev/null; then
			same="yes ($(all_ours "$pat" | wc -l) matches)"
		else
			same=NO status=1
		fi
		if [ "$target" != - ]; then
			verdict=$(awk -v x="$ratio" -v t="$target" 'BEGIN { print (x <= t) ? "ok" : "OVER" }')
			[ "$verdict" = ok ] || status=1
			verdict="(target ${target}x: $verdict)"
		fi
	fi
	printf '%-22s %10s %10s %10s %8s %s %s\n' "$name" "$ma" "$mr" "$mg" "$ratio" "$same" "$verdict"
}
bench "literal, no hit" 'NOWHERE_TO_BE_FOUND_0xfeed' 1.5
bench "anchored regexp" '^func Bench[a-z]+[0-9]+\(' 1.5
bench "last directory only" 'ZEBRA_LAST_7f3a' -
last=$(ours '{"pattern":"ZEBRA_LAST_7f3a"}' | jq -r .content)
grep -q '^d099/s14/f019.go:23:' <<<"$last" && echo "last directory walked: found d099/s14/f019.go:23" || {
	echo "last directory walked: NOT found"
	status=1
}
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status

#!/usr/bin/env bash
# replay.sh replays the peer harness's scripted 10-turn session (list,
# three reads, four shell commands, an edit, text) against the built
# agentls and its sandbox helper, RUNS times, and prints the medians next
# to issue 16's targets, with the machine's load before and after (these
# machines are shared: a load above ~0.5 on 2 cores inflates every number).
#
#	testdata/bench/replay.sh [RUNS]     (default 9)
#
# The binaries are built as the README installs them (CGO_ENABLED=0);
# CGO_ENABLED=1 testdata/bench/replay.sh measures a dynamic build.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-9}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  cores: $(nproc)"
out=$(go test -run '^$' -bench '^BenchmarkReplay$' -benchtime "${runs}x" -count 1 ./cmd/agentls/)
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
line=$(grep '^BenchmarkReplay' <<<"$out") || { echo "$out"; exit 1; }
metric() { awk -v m="$1" '{for (i = 3; i < NF; i++) if ($(i+1) == m) print $i}' <<<"$line"; }
printf '%-34s %10s %10s\n' "median of $runs sessions" measured target
check() { # name metric target
	local v; v=$(metric "$2")
	printf '%-34s %10s %10s %s\n' "$1" "$v" "$3" "$(awk -v v="$v" -v t="$3" 'BEGIN { print (v <= t) ? "ok" : "OVER" }')"
}
check "CPU per session (s)" cpu-s/session 0.06
check "peak RSS server+helper (MiB)" peak-RSS-MiB 24
check "start → first request (ms)" ms-to-first-request 20
check "agent time after a shell turn (ms)" ms-after-shell 6
check "first request (bytes)" first-request-bytes 4000
check "growth per tool turn (bytes)" growth-bytes/turn 650
printf '%-34s %10s\n' "  server's own CPU (s)" "$(metric server-cpu-s)"
printf '%-34s %10s\n' "  server peak RSS (MiB)" "$(metric server-MiB)"
printf '%-34s %10s\n' "  largest helper peak RSS (MiB)" "$(metric helper-MiB)"

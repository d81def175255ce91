#!/usr/bin/env bash
# serve_soak.sh starts one `agentls serve` (built as the README installs
# it) and sends it RUNS plan runs one after the other, each in a session
# of its own, against a scripted model on loopback; it prints the
# server's open files and RSS before the first run and every 100 runs,
# and the growth next to issue 26's bounds (at most 10 more open files and
# 16 MiB more RSS after 400 runs).
#
#	testdata/bench/serve_soak.sh [RUNS]     (default 400)
#
# AGENTLS_BENCH_BIN=/path/to/agentls measures another build (an older one).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-400}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  cores: $(nproc)"
out=$(AGENTLS_SOAK_RUNS=$runs go test -run '^$' -bench '^BenchmarkServeSoak_I26$' -benchtime 1x -count 1 ./cmd/agentls/)
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E 'runs:|growth over' <<<"$out" | sed 's/^ *bench_soak_test.go:[0-9]*: //' || { echo "$out"; exit 1; }
line=$(grep '^BenchmarkServeSoak_I26' <<<"$out") || { echo "$out"; exit 1; }
metric() { awk -v m="$1" '{for (i = 3; i < NF; i++) if ($(i+1) == m) print $i}' <<<"$line"; }
fds=$(metric open-files-growth) rss=$(metric MiB-RSS-growth)
verdict=$(awk -v f="$fds" -v r="$rss" 'BEGIN { print (f <= 10 && r <= 16) ? "ok" : "OVER" }')
printf 'growth: %s open files, %s MiB RSS (bounds 10 and 16): %s\n' "$fds" "$rss" "$verdict"
[ "$verdict" = ok ]

#!/usr/bin/env bash
# Instructions per operation for a set of bench rows, counted by callgrind
# (repeatable on a noisy machine, unlike wall time), as a table:
#   benches/callgrind.sh [BIN] > counts.txt
# BIN defaults to target/release/fastrs-bench. To compare two versions,
# build each in a clean target directory of its own and run this on both.
set -euo pipefail
bin=${1:-target/release/fastrs-bench}
n=${N:-200}
workloads=${WORKLOADS:-"Go message|fastpb String|fastpb Map|page of 50 items|wide payload|int64 large|sint64 small|fixed64 large|nested depth 16"}
libs=${LIBS:-"fastrs|fastrs size|fastrs view"}
count() { # workload op lib iterations
  PROFILE="$2:$3:$4" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --filter "$1" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-20s %-16s %-12s %s\n' workload op lib instructions/op
IFS='|' read -ra W <<<"$workloads"
IFS='|' read -ra L <<<"$libs"
for w in "${W[@]}"; do
  for lib in "${L[@]}"; do
    for op in 0 1 2; do
      # Views have no reused decode; a view "encodes" as a copy.
      [[ $lib == "fastrs view" && $op == 2 ]] && continue
      base=$(count "$w" "$op" "$lib" 0)
      total=$(count "$w" "$op" "$lib" "$n")
      printf '%-20s %-16s %-12s %d\n' "$w" "$(sed -n "$((op + 1))p" <<<$'encode\ndecode\nreused')" "$lib" $(((total - base) / n))
    done
  done
done

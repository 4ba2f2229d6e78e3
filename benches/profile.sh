#!/usr/bin/env bash
# Instructions per operation, counted by callgrind (stable on a noisy machine):
#   benches/profile.sh "WORKLOAD" OP LIB    (OP: 0 encode, 1 decode, 2 decode reused)
# e.g. benches/profile.sh "int64 large" 1 fastrs
set -euo pipefail
workload=$1 op=$2 lib=$3 n=${4:-200}
bin=target/release/fastrs-bench
count() {
  PROFILE="$op:$lib:$1" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --filter "$workload" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
base=$(count 0)
total=$(count "$n")
echo "$workload op$op $lib: $(( (total - base) / n )) instructions/op"

#!/bin/bash
# usage: Benchmarks/serve-load-cpu.sh DIR [extra args]  — runs DIR/ideabox-bench load, prints serve's CPU per request
DIR=$1; shift
ulimit -n 20000
"$DIR/ideabox-bench" load --clients 50 --seconds 20 "$@" > "${TMPDIR:-/tmp}/loadcpu.out" 2>&1 &
bench=$!
tick=$(getconf CLK_TCK); last=0
while kill -0 $bench 2>/dev/null; do
  pid=$(pgrep -P $bench | head -1)
  if [ -n "$pid" ] && [ -r /proc/$pid/stat ]; then
    v=$(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null); [ -n "$v" ] && last=$v
  fi
  sleep 0.1
done
cat "${TMPDIR:-/tmp}/loadcpu.out"
req=$(grep -o '(\([0-9]*\) requests)' "${TMPDIR:-/tmp}/loadcpu.out" | tr -dc 0-9)
echo "serve CPU: $(echo "scale=2; $last/$tick" | bc) s over $req requests = $(echo "scale=1; $last*1000000/$tick/$req" | bc) us/request"

#!/usr/bin/env bash
# Stop a cluster started by start.sh and remove its data directory.
#
#   infra/redis-cluster/stop.sh [--port FIRST] [--nodes COUNT] [--dir DIR]
#
# Defaults match start.sh: ports 7000-7002, data in $TMPDIR/qipai-redis-cluster-FIRST.
set -euo pipefail

port=7000 nodes=3 dir=""
while [ $# -gt 0 ]; do
  case $1 in
    --port) port=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "redis-cluster: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
dir=${dir:-${TMPDIR:-/tmp}/qipai-redis-cluster-$port}
for p in $(seq "$port" $((port + nodes - 1))); do
  redis-cli -h 127.0.0.1 -p "$p" shutdown nosave >/dev/null 2>&1 || true
done
rm -rf "$dir"

#!/usr/bin/env bash
# Start a local Redis Cluster on loopback ports (for development and CI; `.ci/run` uses this).
#
#   infra/redis-cluster/start.sh [--port FIRST] [--masters N] [--replicas R] [--dir DIR]
#
# Starts N*(1+R) `redis-server --cluster-enabled yes` processes on ports FIRST, FIRST+1, ...
# (default 7000, 3 masters, no replicas; the cluster bus uses each port + 10000), without
# persistence, data and logs in DIR (default $TMPDIR/qipai-redis-cluster-FIRST), joins them with
# `redis-cli --cluster create`, waits until every node reports cluster_state:ok and prints the
# QIPAI_REDIS_URL to use, e.g. redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002.
# A healthy cluster already answering on those ports is reused. Stop it with stop.sh.
set -euo pipefail

port=7000 masters=3 replicas=0 dir=""
while [ $# -gt 0 ]; do
  case $1 in
    --port) port=$2; shift 2 ;;
    --masters) masters=$2; shift 2 ;;
    --replicas) replicas=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "redis-cluster: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$masters" -lt 3 ]; then
  echo "redis-cluster: Redis Cluster needs at least 3 masters, not $masters" >&2; exit 2
fi
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
  echo "redis-cluster: redis-server and redis-cli are needed (apt-get install redis-server)" >&2; exit 1; }

count=$((masters * (1 + replicas)))
ports=$(seq "$port" $((port + count - 1)))
dir=${dir:-${TMPDIR:-/tmp}/qipai-redis-cluster-$port}
url="redis+cluster://$(for p in $ports; do printf '127.0.0.1:%s,' "$p"; done | sed 's/,$//')"

cluster_ok() {  # every node answers and agrees the cluster is whole
  for p in $ports; do
    info=$(redis-cli -h 127.0.0.1 -p "$p" cluster info 2>/dev/null) || return 1
    grep -q '^cluster_state:ok' <<<"$info" || return 1
    grep -q "^cluster_known_nodes:$count" <<<"$info" || return 1
  done
}

if cluster_ok; then
  echo "redis-cluster: reusing the cluster on ports $port-$((port + count - 1))" >&2
  echo "$url"; exit 0
fi
for p in $ports; do
  if redis-cli -h 127.0.0.1 -p "$p" ping >/dev/null 2>&1; then
    echo "redis-cluster: port $p already answers but is not a healthy $count-node cluster;" \
         "stop it (infra/redis-cluster/stop.sh --port $port) or choose --port" >&2
    exit 1
  fi
done

mkdir -p "$dir"
echo "redis-cluster: starting $count nodes on ports $port-$((port + count - 1)) (data in $dir)" >&2
for p in $ports; do
  rm -f "$dir/nodes-$p.conf"  # a fresh cluster: no memory of an earlier one on these ports
  redis-server --port "$p" --bind 127.0.0.1 --daemonize yes \
    --cluster-enabled yes --cluster-config-file "nodes-$p.conf" --cluster-node-timeout 2000 \
    --save "" --appendonly no --dir "$dir" --logfile "$dir/$p.log" --pidfile "$dir/$p.pid"
done
for p in $ports; do
  for _ in $(seq 60); do redis-cli -h 127.0.0.1 -p "$p" ping >/dev/null 2>&1 && break; sleep 0.25; done
done
# shellcheck disable=SC2046
redis-cli --cluster create $(for p in $ports; do echo "127.0.0.1:$p"; done) \
  --cluster-replicas "$replicas" --cluster-yes >"$dir/create.log" 2>&1 || {
  cat "$dir/create.log" >&2; exit 1; }
for _ in $(seq 120); do
  if cluster_ok; then echo "$url"; exit 0; fi
  sleep 0.25
done
echo "redis-cluster: the cluster did not reach cluster_state:ok in 30 s (logs in $dir)" >&2
exit 1

#!/usr/bin/env bash
# jury against a real judge: starts llama.cpp's server with a small model
# (.ci/llama-server.sh), runs tests/real_server/ against it, stops it again.
#
#   .ci/real-server-tests.sh [--port N] [--keep]     --keep leaves the server running
#
# .ci/run calls it after the test command, through .ci/real-server-step.sh. Downloads (~520 MB,
# cached under $JURY_CACHE) and a slow judge: on 2 free cores a mode 2 request
# of 10 entries takes about a minute, on shared cores many.
set -euo pipefail
cd "$(dirname "$0")/.."

port=8090 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "real-server-tests.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

# A server that was already up (someone's, reused) is left running.
if .ci/llama-server.sh status --port "$port" >/dev/null 2>&1; then keep=1; fi
# Its exit 75 (the server or the model cannot be fetched) is passed on as
# is: .ci/real-server-step.sh skips the step on it, loudly.
env_lines="$(.ci/llama-server.sh start --port "$port" --threads "${JURY_LLAMA_THREADS:-2}" \
  --seed "${JURY_LLAMA_SEED:-42}")" || exit $?
while IFS= read -r line; do
  case "$line" in JURY_REAL_SERVER_*=*) export "$line" ;; esac
done <<<"$env_lines"
if [ "$keep" = 0 ]; then
  trap '.ci/llama-server.sh stop --port "$port"' EXIT
fi

export CARGO_TERM_COLOR=never
# Were the URL lost on the way, every test would skip and the step pass
# without a real judge asked: the tests fail instead.
export JURY_REAL_SERVER_REQUIRED=1
# One test at a time: the server answers one request at a time anyway.
# The debug build: .ci/run has just built it for the test command.
cargo test --locked --test real_server -- --test-threads 1 --nocapture

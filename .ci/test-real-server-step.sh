#!/usr/bin/env bash
# Checks each branch of .ci/real-server-step.sh without a model (nothing is
# downloaded): fake test scripts for pass, fail and cannot-fetch, a timeout,
# JURY_REAL_SERVER=0, and the real .ci/real-server-tests.sh against a package
# index that does not answer (an empty cache, so it has to fetch).
#
#   .ci/test-real-server-step.sh        exit 0 when every branch does what it says
set -uo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect NAME WANT_EXIT WANT_TEXT [ENV=VALUE...]: runs the step with the env.
expect() {
  local name="$1" want="$2" text="$3"; shift 3
  local out code
  out="$(env "$@" .ci/real-server-step.sh 2>&1)"; code=$?
  if [ "$code" != "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL $name: exit $code (want $want), output lacks '$text':"; sed 's/^/  | /' <<<"$out"
    failed=1
  else
    echo "ok   $name"
  fi
}

fake() { printf '#!/usr/bin/env bash\n%s\n' "$2" >"$tmp/$1"; chmod +x "$tmp/$1"; echo "$tmp/$1"; }

expect "passing tests pass" 0 "real-server tests: passed" \
  JURY_REAL_SERVER_TESTS="$(fake pass 'exit 0')"
expect "a failing test fails CI" 1 "real-server tests: FAILED (exit 101" \
  JURY_REAL_SERVER_TESTS="$(fake fail 'echo "test real_server_mode_2 ... FAILED"; exit 101')"
expect "a server that does not start fails CI" 1 "FAILED (exit 1" \
  JURY_REAL_SERVER_TESTS="$(fake nostart 'exit 1')"
expect "cannot fetch skips, loudly" 0 "SKIPPED: the server or the model could not be fetched" \
  JURY_REAL_SERVER_TESTS="$(fake nofetch 'exit 75')"
expect "out of time fails CI" 1 "FAILED: ran out of time" \
  JURY_REAL_SERVER_TESTS="$(fake slow 'sleep 30')" JURY_REAL_SERVER_MINUTES=0.02
expect "JURY_REAL_SERVER=0 skips" 0 "skipped (JURY_REAL_SERVER=0)" \
  JURY_REAL_SERVER=0 JURY_REAL_SERVER_TESTS="$(fake never 'echo ran; exit 1')"

# The real scripts, an empty cache and an index that refuses connections:
# the fetch fails fast, and the step skips saying why. (Port 9 is discard;
# nothing listens on it here.)
expect "an unreachable index skips, naming the fetch" 0 "CANNOT FETCH" \
  JURY_CACHE="$tmp/cache" PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_RETRIES=0 \
  PIP_DEFAULT_TIMEOUT=3 PIP_NO_CACHE_DIR=1 JURY_REAL_SERVER_MINUTES=5

exit $failed

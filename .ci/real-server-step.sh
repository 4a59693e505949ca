#!/usr/bin/env bash
# .ci/run's real-judge step: runs .ci/real-server-tests.sh and decides what
# its end means for CI.
#
#   exit 0  the tests passed, or the step skipped (JURY_REAL_SERVER=0, or the
#           server or model could not be fetched: said loudly, not a failure)
#   exit 1  a test failed, the server did not start, or the step ran out of
#           time (JURY_REAL_SERVER_MINUTES, default 45): CI fails
#
# JURY_REAL_SERVER_TESTS names the script to run (default
# .ci/real-server-tests.sh); .ci/test-real-server-step.sh points it at fakes
# to check each branch.
set -uo pipefail
cd "$(dirname "$0")/.."

# What real-server-tests.sh (through llama-server.sh) exits with when the
# server or the model cannot be fetched: EX_TEMPFAIL.
CANNOT_FETCH=75

banner() {
  echo "=================================================================="
  echo "real-server tests: $*"
  echo "=================================================================="
}

busiest() {
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; the busiest processes:"
  ps -eo pcpu,etime,args --sort=-pcpu | head -6 | cut -c1-160
}

if [ "${JURY_REAL_SERVER:-1}" = 0 ]; then
  echo "real-server tests: skipped (JURY_REAL_SERVER=0)"
  exit 0
fi

# A slow judge is mostly a busy machine: say what else runs.
busiest
timeout "${JURY_REAL_SERVER_MINUTES:-45}m" "${JURY_REAL_SERVER_TESTS:-.ci/real-server-tests.sh}"
code=$?
case "$code" in
  0)
    echo "real-server tests: passed"
    exit 0 ;;
  "$CANNOT_FETCH")
    banner "SKIPPED: the server or the model could not be fetched (see above). This is not a pass: no real judge was asked."
    exit 0 ;;
  124)
    busiest
    banner "FAILED: ran out of time (${JURY_REAL_SERVER_MINUTES:-45} min, JURY_REAL_SERVER_MINUTES)"
    exit 1 ;;
  *)
    busiest
    banner "FAILED (exit $code; JURY_REAL_SERVER=0 skips this step locally)"
    exit 1 ;;
esac

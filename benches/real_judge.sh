#!/usr/bin/env bash
# How well a real judge does on the sample data, per AwAg mode (not run by CI).
#
#   benches/real_judge.sh [--url URL] [--model NAME] [--items LIST] [--limit N] [--modes "1 2 3"]
#
# Without --url it starts llama.cpp's server with Qwen2.5-Coder-0.5B through
# .ci/llama-server.sh (and leaves it running). Items default to the kenton
# items people labelled in sample-data/labels.jsonl, so every verdict can be
# compared with a person. For each mode it prints:
#   valid-verdict rate   verdicts / combinations asked for
#   s/request            run seconds / requests sent (retries and fallbacks included)
#   tokens/verdict       (prompt + completion tokens) / verdicts
#   agreement            judge vs human, percent agreement and Cohen's kappa
#                        (quadratic-weighted for Likert) with 95 % bootstrap intervals,
#                        from `jury report --format json --by mode`
# The store is kept (path printed) for `jury report` and `jury failures`.
set -euo pipefail
cd "$(dirname "$0")/.."

url="" model="${JURY_MODEL:-qwen2.5-coder-0.5b-instruct-q4_k_m}" items="" limit="" modes="1 2 3"
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --items) items="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    *) echo "real_judge.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "real_judge.sh: jq is needed" >&2; exit 1; }

if [ -z "$url" ]; then
  url="$(.ci/llama-server.sh start | sed -n 's/^JURY_REAL_SERVER_URL=//p')"
fi
if [ -z "$items" ] && [ -z "$limit" ]; then
  items="$(jq -r 'select(.personaId == "kenton" and .perspectiveId == "classification") | .itemId' \
    sample-data/labels.jsonl | sort -u | paste -sd, -)"
fi

cargo build --release --locked -q
jury="${CARGO_TARGET_DIR:-$PWD/target}/release/jury"
work="$(mktemp -d "${TMPDIR:-/tmp}/real_judge.XXXXXX")"
export JURY_DB="$work/jury.db" JURY_CONFIG="$work/no-config.toml" OPENAI_BASE_URL="$url" JURY_MODEL="$model"
"$jury" import sample-data/ >/dev/null

select_args=()
[ -n "$items" ] && select_args+=(--items "$items")
[ -n "$limit" ] && select_args+=(--limit "$limit")

printf '%-5s %-10s %-12s %-10s %-14s\n' mode verdicts valid-rate s/request tokens/verdict
for m in $modes; do
  set +e
  summary="$("$jury" run --mode "$m" --persona kenton --perspective classification \
    --concurrency 1 --json "${select_args[@]}")"
  set -e
  echo "$summary" | jq -r --arg m "$m" '
    [ $m,
      "\(.verdicts)/\(.total)",
      (if .total > 0 then (.verdicts / .total * 100 | floor | tostring) + " %" else "-" end),
      (if .requests > 0 then (.elapsed_s / .requests * 10 | floor / 10 | tostring) else "-" end),
      (if .verdicts > 0 then ((.prompt_tokens + .completion_tokens) / .verdicts | floor | tostring) else "-" end)
    ] | @tsv' | awk -F'\t' '{printf "%-5s %-10s %-12s %-10s %-14s\n", $1, $2, $3, $4, $5}'
  # Agreement of this mode's verdicts with each person's labels (one row per person).
  "$jury" report --format json --by mode | jq -r --arg m "$m" '
    def r: if . == null then "-" else (. * 1000 | round / 1000 | tostring) end;
    def ci: if . == null then "" else " [\(.[0] | r), \(.[1] | r)]" end;
    .judge_vs_human[] | select(.group | startswith("mode " + $m + " "))
    | (if .ordinal then .weighted_kappa_quadratic else .cohen_kappa end) as $k
    | "      vs \(.right): n=\(.n) agreement \(.percent_agreement.value | r)\(.percent_agreement.ci95 | ci)"
      + " kappa\(if .ordinal then "(quadratic)" else "" end) \($k.value | r)\($k.ci95 | ci)"'
done
echo "store: $JURY_DB (jury report / jury failures RUN with JURY_DB set)"

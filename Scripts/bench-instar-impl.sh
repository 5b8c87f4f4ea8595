#!/usr/bin/env bash
# bench-instar-impl.sh STORE -- Instar as one implementation of the peer benchmark (../shared/bench):
# migrates STORE (a copy of the benchmark's V1 store) with Plans/bench-tracks/plan.yaml.
# Called by run_bench.sh through EXTRA_IMPLS (see Scripts/bench). Per-unit wall seconds go to stderr as
# `STEP <name> <seconds>` lines. Instar runs consecutive steps with only inline SQL hooks between them
# as one transaction (a unit), so one unit may cover several benchmark steps (with this plan the whole
# chain is one unit: the hook's SQL is analysed and the track rebuild moves past it): Tracks a → Tracks
# b covers s<a> … s<b-1>; a unit of one step is named as the benchmark names it (s5_drop_columns), a
# longer one `s<a>-s<b-1>_unit`. Plus `instar_total`.
# Env: INSTAR (binary; default .build-release/release/instar), INSTAR_SECURE_DELETE (on|off|fast,
#      passed as --secure-delete; default: none, SQLite's own setting).
set -euo pipefail
STORE=${1:?usage: bench-instar-impl.sh STORE}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INSTAR=${INSTAR:-$ROOT/.build-release/release/instar}
PLAN=$ROOT/Plans/bench-tracks/plan.yaml
args=(migrate "$PLAN" --store "$STORE" --progress json)
if [ -n "${INSTAR_SECURE_DELETE:-}" ]; then args+=(--secure-delete "$INSTAR_SECURE_DELETE"); fi
"$INSTAR" "${args[@]}" | awk '
  BEGIN {
    split("s1_add_column s2_rename_column s3_title_nullable s4_artists_from_json s5_drop_columns", names, " ")
  }
  function num(pattern,   t) { match($0, pattern); t = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", t); return t + 0 }
  function secs(   t) { match($0, /"seconds" : [0-9.eE+-]+/); t = substr($0, RSTART, RLENGTH); sub(/.*: /, "", t); return t }
  /"event" : "stepStarted"/ { a = num("\"from\" : \"Tracks [0-9]+\""); b = num("\"to\" : \"Tracks [0-9]+\"") }
  # the s4 hook runs after Tracks 4 → Tracks 5: a unit that ran it reaches at least Tracks 5
  /"event" : "hook"/ && /artistsFromJSON/ { if (b < 5) b = 5 }
  /"event" : "stepFinished"/ {
    name = (b - a == 1) ? names[a] : sprintf("s%d-s%d_unit", a, b - 1)
    printf "STEP %s %.3f\n", name, secs() > "/dev/stderr"
  }
  /"event" : "finished"/ { printf "STEP instar_total %.3f\n", secs() > "/dev/stderr" }'

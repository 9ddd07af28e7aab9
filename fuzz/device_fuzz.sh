#!/usr/bin/env bash
# One timed fuzz run of the three targets side by side on a many-core machine (workers per
# target: open_and_walk 5, build_and_read 4, tools_on_packages 6), logs and crashes in $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-480}
for spec in ${SPECS:-open_and_walk:5:131072 build_and_read:4:8192 tools_on_packages:6:4096}; do
  n=${spec%%:*}; r=${spec#*:}; w=${r%%:*}; m=${r#*:}
  mkdir -p "$OUT/$n/art" "/tmp/corpus/$n"
  seeds=(); [ "$n" = open_and_walk ] && seeds=("$here/seeds/open_and_walk")
  (cd "$OUT/$n" && "$here/bin-device/$n" -jobs="$w" -workers="$w" -max_total_time="$secs" \
     -max_len="$m" -rss_limit_mb=1024 -malloc_limit_mb=1024 -artifact_prefix="$OUT/$n/art/" \
     "/tmp/corpus/$n" "${seeds[@]}" > /dev/null 2>&1) &
done
wait
for spec in ${SPECS:-open_and_walk build_and_read tools_on_packages}; do
  n=${spec%%:*}
  echo "$n: $(awk '/^Done [0-9]+ runs/ { s += $2 } END { print s + 0 }' "$OUT/$n"/fuzz-*.log) runs, $(ls "$OUT/$n/art" | wc -l) artifacts"
  grep -h "ERROR\|panicked" "$OUT/$n"/fuzz-*.log | head -3
done

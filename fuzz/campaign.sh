#!/usr/bin/env bash
# A long fuzz campaign on a many-core machine, from fuzz binaries built elsewhere:
#
#   cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -O -s none -a TARGET   # for each target
#   fuzz/campaign.sh BIN_DIR OUT_DIR TARGET [RUNS_PER_WORKER]
#
# BIN_DIR holds the target binaries (stripped copies travel well). The campaign runs one
# libFuzzer worker per core but one, each for RUNS_PER_WORKER runs (default 140000: 2.1 M
# runs on 16 cores), from the target's seeds and OUT_DIR/corpus/TARGET; then it minimises the
# corpus into OUT_DIR/min/TARGET, and again to inputs of at most 2 KiB into
# OUT_DIR/small/TARGET. For the targets whose inputs are not packages (build_and_read,
# tools_on_packages) it also saves the package each small input builds into
# OUT_DIR/packages/TARGET, the form fuzz/regressions/ keeps (one process per input: minutes
# for thousands; SAVE_PACKAGES=0 skips it). Crashes land in
# OUT_DIR/artifacts/TARGET; the script exits 1 when there is one. The total run count comes
# from the workers' logs. FUZZ_FLAGS adds libFuzzer flags (for example -max_total_time=120).
set -euo pipefail

bin=$(realpath "$1")
out=$(realpath -m "$2")
target=$3
runs=${4:-140000}
here=$(dirname "$(realpath "$0")")

# Every target runs under a memory limit: a tool whose memory grows with entries x shared
# blobs (issue 23) trips it and leaves a crash.
limits="-rss_limit_mb=1024 -malloc_limit_mb=1024"
case "$target" in
  open_and_walk) max_len=131072 ;;
  build_and_read) max_len=8192 ;;
  tools_on_packages) max_len=4096 ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac

workers=$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))
corpus=$out/corpus/$target
logs=$out/logs/$target
artifacts=$out/artifacts/$target
mkdir -p "$corpus" "$logs" "$artifacts"
seeds=()
[ -d "$here/seeds/$target" ] && seeds+=("$here/seeds/$target")

(cd "$logs" && "$bin/$target" -jobs="$workers" -workers="$workers" -runs="$runs" \
  -max_len="$max_len" -artifact_prefix="$artifacts/" $limits ${FUZZ_FLAGS:-} "$corpus" "${seeds[@]}" >/dev/null 2>&1) || true

total=$(awk '/^Done [0-9]+ runs/ { s += $2 } END { print s + 0 }' "$logs"/fuzz-*.log)
echo "$target: ${total:-0} runs by $workers workers"
grep -h "ERROR\|panicked" "$logs"/fuzz-*.log | head -5 || true

mkdir -p "$out/min/$target"
"$bin/$target" -merge=1 -max_len="$max_len" "$out/min/$target" "$corpus" >/dev/null 2>&1
echo "$target: corpus of $(ls "$corpus" | wc -l) minimised to $(ls "$out/min/$target" | wc -l)"
# A second, small minimisation (inputs of at most 2 KiB): the set fuzz/regressions/ keeps.
mkdir -p "$out/small/$target"
"$bin/$target" -merge=1 -max_len=2048 "$out/small/$target" "$corpus" >/dev/null 2>&1
echo "$target: $(ls "$out/small/$target" | wc -l) inputs of at most 2 KiB cover what small inputs reach"

if [ "$target" != open_and_walk ] && [ "${SAVE_PACKAGES:-1}" != 0 ]; then
  mkdir -p "$out/packages/$target"
  for f in "$out/small/$target"/*; do
    SLANGPACK_FUZZ_SAVE="$out/packages/$target/$(basename "$f").slangpack" \
      "$bin/$target" "$f" >/dev/null 2>&1 || true
  done
fi

if [ -n "$(ls -A "$artifacts")" ]; then
  echo "$target: crashes in $artifacts:" && ls "$artifacts"
  exit 1
fi

#!/usr/bin/env bash
# Fuzzes pecheck's readers of input it does not control (fuzz/README.md):
# configures build-fuzz/ with clang (-DPECHECK_FUZZ=ON), builds the libFuzzer
# targets, and runs each for SECONDS (default 20) from its checked-in seed
# corpus fuzz/corpus/<target>/. Exits 1 on any finding — a crash, a sanitizer
# report, an input slower than 10 s or one needing more than 2 GiB — whose
# input is kept in build-fuzz/findings/<target>/ (replay it with
# build-fuzz/fuzz/fuzz_<target> FILE). New interesting inputs accumulate in
# build-fuzz/corpus/<target>/, never in the checked-in corpus.
#
#   scripts/fuzz.sh            # 20 s per target (the CI pass)
#   scripts/fuzz.sh 600        # 10 minutes per target
#   PECHECK_FUZZ_TARGETS="config_parser" scripts/fuzz.sh 60
set -euo pipefail
seconds=${1:-20}
cd "$(dirname "$0")/.."
targets=(${PECHECK_FUZZ_TARGETS:-answer_reader config_parser recorded_case report_reader reproduce_string hello_shapes})

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p build-fuzz
# The build's output goes to a log, shown when it fails (a harness that no longer compiles says why).
if ! { CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DPECHECK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
         "${launcher[@]}" && cmake --build build-fuzz -j "${PECHECK_BUILD_JOBS:-2}"; } >build-fuzz/build.log 2>&1; then
  echo "fuzz: the build failed (build-fuzz/build.log):" >&2
  grep -E 'error|Error' build-fuzz/build.log | head -20 >&2
  exit 2
fi

status=0
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target findings=build-fuzz/findings/$target log=build-fuzz/$target.log
  mkdir -p "$corpus" "$findings"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$findings/")
  [[ -f fuzz/dict/$target.dict ]] && options+=(-dict="fuzz/dict/$target.dict")
  sanitizer_options=()
  if [[ $target == reproduce_string ]]; then
    # RapidCheck's decoder reserves a string of whatever length a reproduce
    # string declares before it checks the data holds it: in a release build
    # that is a virtual reservation never touched, or std::bad_alloc (refused
    # as malformed). Let allocations fail the way they do there; the memory
    # actually used stays bounded by -rss_limit_mb.
    options+=(-malloc_limit_mb=65536)
    sanitizer_options=(ASAN_OPTIONS=allocator_may_return_null=1)
  fi
  if env "${sanitizer_options[@]}" build-fuzz/fuzz/fuzz_"$target" "${options[@]}" "$corpus" "fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    echo "fuzz: $target: ${runs:-?} runs in ${seconds} s, ${cov:-cov: ?}, no finding"
  else
    echo "fuzz: $target: FINDING (input in $findings/; log $log):"
    grep -E '^(==[0-9]+==|SUMMARY|.*runtime error|.*disagree|artifact_prefix|Test unit written)' "$log" | head -20
    status=1
  fi
done
exit $status

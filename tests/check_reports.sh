#!/usr/bin/env bash
# Runs the full claims matrix and validates what it writes: report.json
# against reports/schema/report.schema.json, junit.xml with xmllint, and every
# counterexample file as JSON; then a run stopped by SIGTERM (its report.json,
# marked interrupted, exit 143) against the same schema.
set -euo pipefail
bin=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" run -q --report-dir "$dir" >/dev/null
xmllint --noout "$dir/junit.xml"
/usr/bin/python3 - "$src/reports/schema/report.schema.json" "$dir" <<'PY'
import json, sys, pathlib, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
report = json.load(open(pathlib.Path(sys.argv[2]) / "report.json"))
jsonschema.validate(report, schema)
files = list((pathlib.Path(sys.argv[2]) / "counterexamples").glob("*.json"))
witnesses = [r for r in report["results"] if "counterexample" in r]
assert len(files) == len(witnesses), (len(files), len(witnesses))
for f in files:
    c = json.load(open(f))
    assert c["format"] == "pecheck-counterexample" and "inputs" in c["counterexample"], f
print(f"report.json valid; junit.xml well-formed; {len(files)} counterexample files")
PY

# A subject that hangs, a run stopped half a second after the subject started
# (its pid file; not a fixed time after pecheck's start: a loaded machine can
# take a second to load pecheck, and a SIGTERM before its handlers ends it
# silently): the report it still writes validates too.
pidfile="$dir/subject.pid"
PECHECK_TEST_PIDFILE="$pidfile" "$bin" run -q --no-regressions --report-dir "$dir/stopped" --subject-timeout 60 \
  --subject "cmd:/usr/bin/python3 $src/tests/subjects/misbehaving.py hang" >/dev/null 2>&1 &
pecheck_pid=$!
for _ in $(seq 600); do [[ -s $pidfile ]] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$pecheck_pid"
for _ in $(seq 600); do kill -0 "$pecheck_pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pecheck_pid" 2>/dev/null || true
stopped=0
wait "$pecheck_pid" || stopped=$?
[[ $stopped == 143 ]] || { echo "a run stopped by SIGTERM exited $stopped, not 143" >&2; exit 1; }
/usr/bin/python3 - "$src/reports/schema/report.schema.json" "$dir/stopped" <<'PY'
import json, sys, pathlib, jsonschema
report = json.load(open(pathlib.Path(sys.argv[2]) / "report.json"))
assert report["interrupted"] == "SIGTERM" and report["exit_code"] == 143, report.get("interrupted")
jsonschema.validate(report, json.load(open(sys.argv[1])))
print("the interrupted run's report.json valid")
PY

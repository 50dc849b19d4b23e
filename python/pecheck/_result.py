"""What a check returns (Result) or raises (CheckFailed, UsageError), and the failure message.

The message is built from report.json (its schema, version 2, is the
contract), never from the console output, whose wording may change.
"""

import json
import os

_MAX_JSON = 1500  # characters of one JSON value shown inline; the full value is in the report


class UsageError(ValueError):
    """pecheck refused the run (exit 2): a bad option, glob or declaration."""

    __module__ = "pecheck"  # shown as pecheck.UsageError, where users catch it


class CheckFailed(AssertionError):
    """A property failed, errored, or nothing was checked (check_*), or a replayed counterexample still
    fails (replay): the one exception a failing check raises. `.result` holds check_*'s Result (None from
    replay), `.outcome` replay's JSON result (None from check_*)."""

    __module__ = "pecheck"

    def __init__(self, result=None, *, message=None, outcome=None):
        super().__init__(message if message is not None else result.message())
        self.result, self.outcome = result, outcome


class Result:
    """One pecheck run against one served function.

    passed      True when pecheck exited 0 and at least one cell was checked
    exit_code   pecheck's exit status: 0 passed, 1 a property failed, 2 usage error, 3 the subject broke
    report      report.json, parsed (None when pecheck wrote none)
    report_dir  where the reports are (None when a passing run's temporary directory was removed)
    output      pecheck's console output
    """

    __module__ = "pecheck"

    def __init__(self, *, exit_code, report, report_dir, output, command, subject, replay_hint, rerun_hint,
                 first_error=None):
        self.exit_code, self.report, self.report_dir = exit_code, report, report_dir
        self.output, self.command = output, command
        self.subject = subject  # {"name", "op", "dtype", "framework"}
        self.replay_hint, self.rerun_hint, self.first_error = replay_hint, rerun_hint, first_error

    @property
    def summary(self):
        return (self.report or {}).get("summary", {})

    @property
    def cells(self):
        return int(self.summary.get("total", 0))

    @property
    def failed(self):
        return int(self.summary.get("failed", 0))

    @property
    def errors(self):
        return int(self.summary.get("error", 0))

    @property
    def passed(self):
        return self.exit_code == 0 and self.cells > 0

    @property
    def results(self):
        return (self.report or {}).get("results", [])

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return (f"Result(passed={self.passed}, exit_code={self.exit_code}, cells={self.cells}, "
                f"failed={self.failed}, errors={self.errors}, report_dir={self.report_dir!r})")

    def counterexample_file(self, result):
        """The counterexample file of one failed result, or None."""
        if not self.report_dir:
            return None
        folder = os.path.join(self.report_dir, "counterexamples")
        prefix = result.get("property", "") + "--"
        try:
            names = sorted(n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".json"))
        except OSError:
            return None
        return os.path.join(folder, names[0]) if names else None

    def message(self):
        return format_message(self)


_ZERO_RUN = 4  # zeros in a row written as one "0 ×N"


def _readable(value):
    """JSON text with every run of at least 4 zeros in a list written "0 ×N" (a fixed-width module's shrunk
    witness is rows of mostly zeros); not JSON: the report and the counterexample file keep the value."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _readable(v) for k, v in value.items()) + "}"
    if not isinstance(value, list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    parts, i = [], 0
    while i < len(value):
        run = 0
        while i + run < len(value) and isinstance(value[i + run], (int, float)) and \
                not isinstance(value[i + run], bool) and value[i + run] == 0:
            run += 1
        if run >= _ZERO_RUN:
            parts.append(f"0 ×{run}")
            i += run
        else:
            parts.append(_readable(value[i]))
            i += 1
    return "[" + ",".join(parts) + "]"


def _compact(value):
    text = _readable(value)
    return text if len(text) <= _MAX_JSON else text[:_MAX_JSON] + f"… ({len(text)} characters; full in the report)"


def _number(value):
    return f"{value:.6g}" if isinstance(value, (int, float)) else str(value)


def _claims(report):
    return {p.get("id"): p.get("claim", "") for p in (report or {}).get("properties", [])}


def format_counterexample(c, shrinks=None):
    """The lines of one counterexample (report.json's `counterexample`, or replay's)."""
    lines = []
    steps = f" (shrunk in {shrinks} steps)" if shrinks else ""
    lines.append(f"  counterexample{steps}: {_compact(c.get('inputs'))}")
    lines.append(f"  at {c.get('where') or 'the whole output'}: observed {_compact(c.get('observed'))}, "
                 f"expected {_compact(c.get('expected'))}")
    tolerance = c.get("tolerance") or {}
    relation = "<" if c.get("bound_kind") == "lower" else ">"
    lines.append(f"  check \"{c.get('check', '?')}\": error {_number(c.get('error'))} {relation} tolerance "
                 f"{_number(tolerance.get('bound'))} ({tolerance.get('formula', '')})")
    if c.get("diagnosis"):
        lines.append(f"  diagnosis: {c['diagnosis']}")
    if c.get("note"):
        lines.append(f"  note: {c['note']}")
    return lines


def format_result(r, claims, counterexample_file=None):
    """The lines for one failed or errored cell."""
    status = "FAILED" if r.get("status") == "failed" else "ERROR"
    claim = claims.get(r.get("property"), "")
    lines = [f"{status} {r.get('property')} (expected: {r.get('expectation')}; observed: {r.get('outcome')})"
             + (f": {claim}" if claim else "")]
    if "counterexample" in r:
        lines += format_counterexample(r["counterexample"], r.get("shrinks"))
        if counterexample_file:
            lines.append(f"  file: {counterexample_file}")
    elif "subject_failure" in r:
        f = r["subject_failure"]
        lines.append(f"  the function broke the protocol: {f.get('message', '')}")
        lines.append(f"  request: {f.get('request', '')[:_MAX_JSON]}")
        lines.append(f"  received: {f.get('received', '')[:_MAX_JSON]}")
    elif r.get("expectation") == "violated" and r.get("outcome") == "holds" and not r.get("message"):
        lines.append(f"  a violation was expected, but none was found in {r.get('cases')} cases")
    if r.get("message"):
        lines.append(f"  {r['message']}")
    if r.get("discards") and "stopped early" not in (r.get("message") or ""):
        lines.append(f"  {r['discards']} inputs refused" + (f" ({r['discard_reason']})" if r.get("discard_reason")
                                                           else ""))
    return lines


def cause_first(results):
    """The failed and errored results as (cause, [its consequences]) in the report's order: a result marked
    `consequence_of` (report.json; pecheck decides it from its table of which claim explains which) is listed
    under the failure of its subject that explains it, so the message leads with the cause."""
    failing = [r for r in results if r.get("status") in ("failed", "error")]
    groups, index = [], {}
    for r in failing:
        if not r.get("consequence_of"):
            index[(r.get("subject"), r.get("property"))] = len(groups)
            groups.append((r, []))
    for r in failing:
        if r.get("consequence_of"):
            at = index.get((r.get("subject"), r.get("consequence_of")))
            if at is None:
                groups.append((r, []))  # its cause is not in this report: it leads itself
            else:
                groups[at][1].append(r)
    return groups


def format_message(result):
    s = result.subject
    who = f"{s['name']} ({s['op']}, {s['dtype']}, {s['framework']})"
    report = result.report
    if report is None:
        head = [f"pecheck: checking {who} exited {result.exit_code} without a report"]
        return "\n".join(head + ["", result.output.strip()[-4000:]])
    if result.cells == 0:
        lines = [f"pecheck: no property was checked for {who}: none of pecheck's properties applies to what it "
                 f"declares (op {s['op']}, profile/properties as given), so nothing was verified"]
    else:
        lines = [f"pecheck: {who}: {result.failed} of {result.cells} properties failed"
                 + (f", {result.errors} errored" if result.errors else "") + f" (exit {result.exit_code})"]
    budget = report.get("time_budget") or {}
    if budget.get("spent"):
        cut = [r for r in result.results if r.get("status") == "skipped"]
        lines.append(f"the time budget ({budget.get('seconds'):g} s) was spent: {len(cut)} of {result.cells} "
                     f"properties stopped or not run, so the check fails (raise time_budget=, or lower cases=)")
        for r in cut:
            lines.append(f"  {r.get('property')}: {r.get('message', '')}")
    claims = _claims(report)
    for cause, consequences in cause_first(result.results):
        lines += [""] + format_result(cause, claims, result.counterexample_file(cause))
        if consequences:
            ids = ", ".join(r.get("property", "?") for r in consequences)
            lines += ["", f"likely consequences of {cause.get('property')} (the same cause seen by other claims): {ids}"]
            for r in consequences:
                lines += [""] + ["  " + line for line in format_result(r, claims, result.counterexample_file(r))]
    # A refused input bears on the failure only when no failure has a counterexample of its own (every
    # input refused, a subject failure): beside a measured counterexample it reads as the cause and is not.
    measured = any(r.get("status") in ("failed", "error") and r.get("counterexample") for r in result.results)
    if result.first_error is not None and not measured:
        op, trace = result.first_error
        lines += ["", f"the function raised (the first of the inputs it refused, in {op}):", trace.rstrip()]
    lines.append("")
    if result.report_dir:
        lines.append(f"reports: {result.report_dir} (report.json, summary.md, report.html, junit.xml)")
    if result.replay_hint:
        lines.append(f"replay:  {result.replay_hint}")
    if result.rerun_hint:
        lines.append(f"rerun:   {result.rerun_hint}")
    return "\n".join(lines)

"""check_encoder, check_rotary, check_attention, check_bias, check_module and replay."""

import difflib
import json
import os
import re
import shlex
import shutil
import stat
import sys
import tempfile

from . import _defaults
from ._contracts import check_signatures
from ._convert import Converter, answer_dtype, detect_framework, module_dtype_and_device
from ._framework import FrameworkUnknown
from ._gradients import autograd_backward, given_backward
from ._declarations import DTYPES, _check_declarations, _length_dependent
from ._schema import REPLAYABLE_OPS
from ._handlers import Handlers, probe_widths
from ._result import CheckFailed, Result, UsageError, cause_first, format_counterexample
from . import _progress
from ._serve import _batched_ops
from ._session import run_with_subject

_EXIT_USAGE = 2


def _name_of(fn):
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return name.replace(".<locals>.", ".")  # test_x.<locals>.rotate reads as test_x.rotate


def _device_of(fn, framework, device):
    if device is not None or framework != "torch":
        return device
    return module_dtype_and_device(fn)[1]


def _infer_dtype(op, functions, framework, device, params, batched):
    """The dtype of what the function returns on a probe input given in its module's dtype (else float32)."""
    __tracebackhide__ = True
    module_dtype, _ = module_dtype_and_device(functions[op])
    probe_dtype = module_dtype or "float32"
    handlers = Handlers(functions, Converter(framework, probe_dtype, device), batched)
    first_error = None
    for width in probe_widths(op, params):  # a module built for one width refuses the others
        try:
            answer = handlers.probe(op, params, width)
            break
        except Exception as e:
            first_error = first_error or e
    else:
        e = first_error
        given = "torch tensors" if framework == "torch" else "NumPy arrays"
        raise ValueError(f"pecheck could not infer the dtype of {_name_of(functions[op])}: on a small probe input "
                         f"({probe_dtype} {given}) it raised {type(e).__name__}: {e}. Declare dtype= (one of "
                         f"{', '.join(DTYPES)}), or framework= if it takes "
                         f"{'NumPy arrays' if framework == 'torch' else 'torch tensors'}") from e
    inferred = answer_dtype(answer) if answer is not None else module_dtype
    if inferred is None:
        what = "nothing to probe (declare params={'forward': {'width': d}})" if answer is None else \
            f"{type(answer).__name__} of {getattr(answer, 'dtype', 'numbers')}"
        raise ValueError(f"pecheck could not infer the dtype of {_name_of(functions[op])}: it returned {what}. "
                         f"Declare dtype= (one of {', '.join(DTYPES)})")
    return inferred


class _Served:
    """A user's functions, ready for serve(): converted, declared, named."""

    def __init__(self, op, functions, *, dtype, compute, params, layout, name, framework, device, batched=False):
        __tracebackhide__ = True
        primary = functions[op]
        self.op = op
        try:
            self.framework = detect_framework(primary, framework)
        except FrameworkUnknown as e:
            raise UsageError(str(e)) from None
        device = _device_of(primary, self.framework, device)
        batched = _batched_ops(batched, functions)
        check_signatures(functions, params, batched)  # before the dtype probe calls them
        # pecheck's judgement of the declarations, before the dtype probe is sized from them (a dtype to be
        # inferred is judged as float64: every dtype declares the same params).
        _check_declarations(DTYPES[0] if dtype is None else dtype, layout, compute, params, functions)
        if dtype is None:
            dtype = _infer_dtype(op, functions, self.framework, device, params, batched)
        if dtype not in DTYPES:  # an inferred dtype outside the protocol's
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
        self.dtype = dtype
        self.handlers = Handlers(functions, Converter(self.framework, dtype, device), batched)
        serve_handlers = self.handlers.for_serve()
        length_dependent = _length_dependent(params)
        if "rotate" in functions and length_dependent and not self.handlers.rotate_takes_seq_len:
            raise ValueError(f"a {length_dependent} rotary depends on the sequence length: rotate must take a "
                             "seq_len= keyword (rotate(positions, x, seq_len=None))")
        self.name = str(name) if name is not None else _name_of(primary)
        self.serve_kwargs = dict(name=self.name, dtype=dtype, layout=layout, compute=compute, params=params,
                                 batch=True, batched=batched, **serve_handlers)

    def describe(self):
        return {"name": self.name, "op": self.op, "dtype": self.dtype, "framework": self.framework}


def _report_dir(report_dir, name):
    """(directory, whether it is temporary): as given; else a new folder under the test runner's root; else a temp."""
    if report_dir is not None:
        return os.fspath(report_dir), False
    root = _defaults.get("report_root")
    root = root() if callable(root) else root
    if root is None:
        return tempfile.mkdtemp(prefix="pecheck-"), True
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "subject"
    for k in range(1, 10000):
        candidate = os.path.join(os.fspath(root), base if k == 1 else f"{base}-{k}")
        if not os.path.exists(candidate):
            return candidate, False
    raise RuntimeError(f"too many pecheck report folders under {root}")


def _rerun_template():
    """The command that runs this check again, with {seed} for the seed when a test runner takes one: the
    test under pytest; outside it the script that made the check (it passes the same seed again); None
    when neither is known. Never pecheck's own command line, whose subject (fd:R,W) is this process."""
    command = _defaults.get("rerun")  # the pytest plugin's, from the current directory
    if command:
        return f"{command} --pecheck-seed {{seed}}"
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if test:
        return f"pytest {shlex.quote(test)} --pecheck-seed {{seed}}"
    script = sys.argv[0] if sys.argv else ""
    if script and os.path.isfile(script):
        return shlex.join([sys.executable, *sys.argv])
    return None


def _rerun_hint(seed):
    template = _rerun_template()
    return template.replace("{seed}", str(seed)) if template else f"the same call with seed={seed}"


def _replay_hint(served, result):
    # The cause's counterexample (the one the message leads with), not the first consequence's.
    failed = [r for r, _ in cause_first(result.results) if r.get("status") == "failed" and "counterexample" in r]
    path = result.counterexample_file(failed[0]) if failed else None
    if path is None:
        return None
    return (f"pecheck.replay({path!r}, {served.op}=<the fixed function>, <the same declarations>) measures "
            f"this counterexample again")


_MAX_REPORT_BYTES = 1 << 30  # pecheck's own limit for a report it reads back (docs/reports-and-merge.md)


def _read_report(report_dir):
    """report.json as pecheck wrote it, or None: read as pecheck reads files back — a regular file only (a
    FIFO put there would hang a plain open), of bounded size."""
    path = os.path.join(report_dir, "report.json")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_REPORT_BYTES:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = None
            return json.loads(f.read(_MAX_REPORT_BYTES + 1).decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        if fd is not None:
            os.close(fd)


def _progress_display(progress, name):
    """The callable that gets pecheck's progress events, or None: `progress` as given (a callable, True,
    False), else the test runner's display, else a line on stderr when it is a terminal."""
    if callable(progress):
        return progress
    if progress is False:
        return None
    runner = _defaults.get("progress")
    if runner is not None:
        return runner(name)
    if progress is True or _progress.stderr_is_terminal():
        return _progress.TerminalProgress(name)
    return None


_MAX_MODEL_CONFIG_BYTES = 4 << 20  # pecheck's own bound (kMaxConfigBytes): a config.json is kilobytes


def _read_model_config(path):
    """The dict a config.json path holds, read as pecheck reads --model-config: a regular file of at most 4 MiB
    of UTF-8 JSON (a FIFO would wait for a writer, /dev/zero never end: issue 39's hostile pass), else a
    UsageError naming the path and why."""
    try:
        info = os.stat(path)
    except OSError as e:
        raise UsageError(f"model_config= {os.fspath(path)!r} cannot be read: {e.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"model_config= {os.fspath(path)!r} is not a regular file: refused")
    if info.st_size > _MAX_MODEL_CONFIG_BYTES:
        raise UsageError(f"model_config= {os.fspath(path)!r} is {info.st_size} bytes, more than the 4 MiB pecheck "
                         f"reads in a model config: refused")
    try:
        with open(path, "rb") as f:
            return json.loads(f.read(_MAX_MODEL_CONFIG_BYTES + 1).decode("utf-8"))
    except OSError as e:
        raise UsageError(f"model_config= {os.fspath(path)!r} cannot be read: {e.strerror}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise UsageError(f"model_config= {os.fspath(path)!r} is not JSON: {e}") from None


def with_model_config(params, model_config):
    """params with a model's config.json as params.model (SUBJECT-PROTOCOL.md "Model configs"): pecheck reads it
    and derives every op's declarations from it, layer by layer; an explicit params field that contradicts it is
    refused. model_config is a path to the file or the dict itself (a multimodal one: its text_config is read)."""
    if model_config is None:
        return params
    if isinstance(model_config, (str, os.PathLike)):
        config = _read_model_config(model_config)
    elif isinstance(model_config, dict):
        config = model_config
    else:
        raise ValueError(f"model_config= must be a path to a config.json or its dict, got {type(model_config).__name__}")
    if not isinstance(config, dict):
        raise ValueError(f"model_config= {model_config!r} does not hold a JSON object")
    params = dict(params or {})
    if "model" in params and params["model"] != config:
        raise ValueError("params['model'] and model_config= give two different configs: give one")
    params["model"] = config
    return params


def _check(op, functions, *, dtype, compute, params, layout, name, framework, device, batched, max_position, cases,
           seed, properties, profile, report_dir, timeout, time_budget, progress, args, raise_on_failure, fork,
           model_config):
    __tracebackhide__ = True
    if params is not None and not isinstance(params, dict):  # a list crashed in the contract check (hostile pass)
        raise UsageError(f"params= must be a dict of declarations by op (params={{'rotate': {{...}}}}), got "
                         f"{type(params).__name__}")
    params = with_model_config(params, model_config if model_config is not None else _defaults.get("model_config"))
    served = _Served(op, functions, dtype=dtype, compute=compute, params=params, layout=layout, name=name,
                     framework=framework, device=device, batched=batched)
    cases = cases if cases is not None else _defaults.get("cases")
    seed = seed if seed is not None else _defaults.get("seed")
    time_budget = time_budget if time_budget is not None else _defaults.get("time_budget")
    directory, temporary = _report_dir(report_dir, served.name)
    tail = ["--report-dir", directory, "--no-regressions"]
    for flag, value in (("--cases", cases), ("--seed", seed), ("--max-position", max_position),
                        ("--profile", profile), ("--subject-timeout", timeout), ("--time-budget", time_budget),
                        ("--rerun-command", _rerun_template())):
        if value is not None:
            tail += [flag, str(value)]
    for glob in [properties] if isinstance(properties, str) else (properties or []):
        tail += ["--properties", glob]
    tail += [str(a) for a in args]
    display = _progress_display(progress, served.name)
    try:
        exit_code, output, command, loop_error, copy_error = run_with_subject(
            ["run"], tail, dict(served.serve_kwargs, fork=fork), first_error=lambda: served.handlers.first_error,
            progress=display)
    finally:
        if hasattr(display, "close"):
            display.close()
    if served.handlers.first_error is None:
        served.handlers.first_error = copy_error
    if isinstance(loop_error, (SystemExit, KeyboardInterrupt)):
        # Not a refusal (the loop turns an Exception into one): it ended the subject.
        output += (f"\n(the checked function raised {type(loop_error).__name__}({loop_error}) while answering "
                   "pecheck: sys.exit() or an interrupt inside it ends the subject, so the check could not go on)")
    elif loop_error is not None:
        output += f"\n(the answering loop raised {type(loop_error).__name__}: {loop_error})"
    report = _read_report(directory)
    if exit_code == _EXIT_USAGE:
        raise UsageError(f"pecheck refused to check {served.name}:\n{output.strip()}")
    result = Result(exit_code=exit_code, report=report, report_dir=directory, output=output, command=command,
                    subject=served.describe(), replay_hint=None,
                    rerun_hint=_rerun_hint((report or {}).get("seed", seed if seed is not None else 1)),
                    first_error=served.handlers.first_error)
    result.replay_hint = _replay_hint(served, result)
    if result.passed and temporary:
        shutil.rmtree(directory, ignore_errors=True)
        result.report_dir = None
    record = _defaults.get("record")
    if record is not None:
        record(result)
    if raise_on_failure and not result.passed:
        raise CheckFailed(result)
    return result


_COMMON = """
    Keywords (all optional):
      dtype         the precision the function computes in: float64, float32, bfloat16, float16 (default:
                    inferred from what it returns on a small probe input)
      compute       finer precision per stage, e.g. {"angles": "float32"} (SUBJECT-PROTOCOL.md, version 2)
      params        the conventions it implements, e.g. {"rotate": {"base": 500000, "layout": "halves"}}
      model_config  a model's config.json (a path, or its dict): pecheck reads it and declares every op layer by
                    layer as it says (params.model; docs/model-configs.md); an explicit params field that
                    contradicts it is refused, showing both
      layout        "interleaved" or "halves" (the default layout of encode and rotate)
      name          what reports call it (default: the function's qualified name)
      framework     "numpy" or "torch": what its arguments are (default: detected when certain, else pecheck
                    asks for it with the reason: docs/python-contracts.md)
      device        where torch arguments are put (default: the module's device, else the CPU)
      batched       True: the function takes a whole batch, fn([args, ...]) -> [answer, ...], each args the
                    tuple the plain function would get (rotate's always holds seq_len, None when pecheck
                    sends none): one vectorised call answers many requests (see docs/performance.md)
      max_position, cases, seed, properties (glob or list of globs), profile, timeout (seconds per request):
                    pecheck run's --max-position, --cases, --seed, --properties, --profile, --subject-timeout
      time_budget   seconds the whole check may take (pecheck run --time-budget): when they are spent, the
                    cell running stops and the rest are not run, and the check fails saying so
      progress      True/False, or a function called with each progress event (a dict); default: a live
                    line on stderr when it is a terminal (in pytest: on pytest's terminal)
      report_dir    where the reports go (default: a temporary folder, kept when the check fails; in
                    pytest: the project's .pecheck/reports/<test>/)
      args          more `pecheck run` arguments, e.g. ["--tolerance-factor", "16"]
      fork          None (the default): where this process can fork safely (one thread, CUDA not initialised,
                    Linux), pecheck's instances of the function are copies forked from it, in their own
                    processes: cells run side by side (--jobs) and history_independence runs; False: one
                    thread of this process answers pecheck, and history_independence is not run
      raise_on_failure  False: return the Result instead of raising CheckFailed (an AssertionError)

    Returns a Result (passed, exit_code, report, report_dir); raises CheckFailed when a property fails,
    errors, or none applies; UsageError when pecheck refuses the options."""


def _documented(fn):
    fn.__doc__ = (fn.__doc__ or "") + _COMMON
    return fn


_KEYWORDS = dict(dtype=None, compute=None, params=None, layout=None, name=None, framework=None, device=None,
                 batched=False, max_position=None, cases=None, seed=None, properties=None, profile=None,
                 report_dir=None, timeout=None, time_budget=None, progress=None, args=(), raise_on_failure=True,
                 fork=None, model_config=None)


def _with_backward(op, functions, gradients, backward, keywords):
    """The functions with a backward for `op` where gradients are asked (gradients=True, or the pytest
    option --pecheck-gradients), and params.backward.of declaring it (in `keywords`, updated)."""
    __tracebackhide__ = True
    if gradients is None:
        gradients = bool(_defaults.get("gradients")) or backward is not None
    if not gradients:
        if backward is not None:
            raise UsageError("backward= is given with gradients=False")
        return functions
    if backward is not None:
        functions["backward"] = given_backward(op, backward)
    else:
        try:
            framework = detect_framework(functions[op], keywords.get("framework"))
        except FrameworkUnknown as e:
            raise UsageError(str(e)) from None
        if framework != "torch":
            raise UsageError(f"gradients=True on a NumPy {op} function needs its backward: backward=fn, "
                             f"fn(...its arguments..., grad) (a torch function is differentiated by autograd)")
        functions["backward"] = autograd_backward(functions)
    params = dict(keywords.get("params") or {})
    params["backward"] = {"of": [op]}
    keywords["params"] = params
    return functions


def unknown_keyword(function, key, known):
    """The TypeError for a keyword `function` does not take, with the closest one it does."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}=?" if close else f" (it takes: {', '.join(sorted(known))})"
    return TypeError(f"{function}() got an unexpected keyword argument {key!r}{hint}")


def _keywords(function, keywords, extra=()):
    __tracebackhide__ = True
    for key in keywords:
        if key not in _KEYWORDS:
            raise unknown_keyword(function, key, list(_KEYWORDS) + list(extra))
    return {**_KEYWORDS, **keywords}


@_documented
def check_encoder(encode, **keywords):
    """Checks an absolute positional encoding: encode(dim, positions, seq_len) -> len(positions) × dim,
    row r the encoding of positions[r] (int64) in a sequence of seq_len tokens."""
    __tracebackhide__ = True
    return _check("encode", {"encode": encode}, **_keywords("check_encoder", keywords))


@_documented
def check_rotary(rotate, *, gradients=None, backward=None, **keywords):
    """Checks a rotary embedding: rotate(positions, x) -> row r is R_{positions[r]} x[r] (x: n × d);
    seq_len=... is passed as a keyword when pecheck sends one and the function takes it. gradients=True
    checks its backward too (the grad.* claims): a torch function through autograd (its custom
    autograd.Function's backward included); a NumPy one through backward(positions, x, grad) -> dx."""
    __tracebackhide__ = True
    functions = _with_backward("rotate", {"rotate": rotate}, gradients, backward, keywords)
    return _check("rotate", functions, **_keywords("check_rotary", keywords))


@_documented
def check_attention(attention, *, gradients=None, backward=None, **keywords):
    """Checks scaled dot-product attention, one head: attention(q, k, v, mask) -> n × d_v; mask is "none",
    "causal" or an n × m boolean array, True where query i may attend to key j. Declare the attention of a
    2024–2026 model with params={"attention": {...}} (heads/kv_heads: q H × n × d, k and v G × m × d, the answer
    H × n × d_v; window, chunk, softcap, sinks with sink_logits, scale, alignment, fully_masked, poison_invariance;
    config.json's names are accepted: docs/attention-conventions.md).
    gradients=True checks its backward too (the grad.* claims): a torch function through autograd; a NumPy
    one through backward(q, k, v, mask, grad) -> (dq, dk, dv)."""
    __tracebackhide__ = True
    functions = _with_backward("attention", {"attention": attention}, gradients, backward, keywords)
    return _check("attention", functions, **_keywords("check_attention", keywords))


@_documented
def check_bias(bias, **keywords):
    """Checks an additive attention bias: bias(n, m, head) -> n × m (head 0-based); declare
    params={"bias": {"scheme": "alibi" or "t5", "heads": H, ...}}."""
    __tracebackhide__ = True
    return _check("bias", {"bias": bias}, **_keywords("check_bias", keywords))


@_documented
def check_module(forward, *, decode=None, reset=None, gradients=None, backward=None, **keywords):
    """Checks a whole module: forward(x, positions, padding) -> B × N × d_out on x B × N × d, positions
    B × N (int64), padding B × N (True for a real token); decode(session, x, position) -> d_out and
    reset(session) for incremental decoding (both or neither); declare params={"forward": {...}}. With
    "segments": True forward also gets segments (B × N document ids), with "multi_token_decode": True decode
    may get k tokens (x k × d, positions k) and answers k rows, with "cache_capacity": True reset gets
    (session, capacity).
    gradients=True checks its backward too (grad.causality for a causal module): a torch module through
    autograd; a NumPy one through backward(x, positions, padding, grad) -> dx (B × N × d)."""
    __tracebackhide__ = True
    functions = _with_backward("forward", {"forward": forward}, gradients, backward, keywords)
    functions.update({op: fn for op, fn in (("decode", decode), ("reset", reset)) if fn is not None})
    return _check("forward", functions, **_keywords("check_module", keywords, ("decode", "reset")))


_REPLAY_OPS = REPLAYABLE_OPS  # the ops a counterexample file replays (the schema's x-pecheck-replayable-ops)


_REPLAY_KEYWORDS = ("encode", "rotate", "attention", "bias", "forward", "decode", "reset", "dtype", "compute",
                    "params", "layout", "name", "framework", "device", "batched", "timeout", "raise_on_failure")


def replay(counterexample, **keywords):
    """Measures a recorded counterexample file again against the given function (e.g. the fixed one):
    `pecheck replay FILE --subject fd:…`. Keywords: the function for its op (encode=, rotate=,
    attention=, bias= or forward=, with decode=/reset=) and the same declarations as the check
    (dtype, compute, params, layout, name, framework, device, batched), timeout, raise_on_failure.
    Returns replay's JSON result (with its `exit_code`: 0 now holds or the expected violation is
    reproduced); raises CheckFailed (the exception check_* raise) when it still fails."""
    __tracebackhide__ = True
    for key in keywords:
        if key not in _REPLAY_KEYWORDS:
            raise unknown_keyword("replay", key, _REPLAY_KEYWORDS)
    k = {key: keywords.get(key) for key in _REPLAY_KEYWORDS}
    given = {op: k[op] for op in ("encode", "rotate", "attention", "bias", "forward", "decode", "reset")
             if k[op] is not None}
    primary = [op for op in _REPLAY_OPS if op in given]
    if len(primary) != 1:
        raise ValueError("replay() takes the function for one op: encode=, rotate=, attention=, bias= or forward=")
    served = _Served(primary[0], given, dtype=k["dtype"], compute=k["compute"], params=k["params"],
                     layout=k["layout"], name=k["name"], framework=k["framework"], device=k["device"],
                     batched=k["batched"] or False)
    timeout = k["timeout"]
    tail = ["--json"] + (["--subject-timeout", str(timeout)] if timeout is not None else [])
    exit_code, output, command, _, _ = run_with_subject(["replay", os.fspath(counterexample)], tail,
                                                        served.serve_kwargs)
    if exit_code == _EXIT_USAGE:
        raise UsageError(f"pecheck could not replay {counterexample}:\n{output.strip()}")
    try:
        outcome = json.loads(output[output.index("{"):])
    except ValueError:
        outcome = {"exit_code": exit_code, "message": output.strip()}
    outcome["exit_code"] = exit_code
    if keywords.get("raise_on_failure", True) and exit_code != 0:
        lines = [f"pecheck replay: {served.name} still fails {outcome.get('property', counterexample)} "
                 f"(exit {exit_code})"]
        if "counterexample" in outcome:
            lines += format_counterexample(outcome["counterexample"])
        if outcome.get("message"):
            lines.append(f"  {outcome['message']}")
        lines.append(f"  file: {os.fspath(counterexample)}")
        raise CheckFailed(message="\n".join(lines), outcome=outcome)
    return outcome

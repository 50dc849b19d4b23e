"""Fresh copies by fork from Python (docs/fresh-copies.md): serve() declares fork where the process
can fork safely and says why not otherwise; the check_* functions answer pecheck from copies forked
from the test process, so history_independence runs in-process and finds a cache bug, and the
first exception a copy's function raised still reaches the failure message."""
import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import pecheck
from pecheck import _fork, _serve
from support import rope

SOURCE = Path(__file__).resolve().parents[2]


def _hello(**serve_keywords):
    """What serve() answers to pecheck's hello (protocol 2), and its stderr."""
    requests = io.BytesIO(b'{"id":0,"op":"hello","protocol":2}\n{"id":1,"op":"shutdown"}\n')
    answers = io.BytesIO()
    _serve.serve("s", "float64", rotate=rope, stdin=requests, stdout=answers, **serve_keywords)
    return json.loads(answers.getvalue().splitlines()[0])["result"]


def test_serve_declares_fork_only_where_the_process_can_fork_safely(monkeypatch, capfd):
    monkeypatch.delenv("PECHECK_SUBJECT_FORK", raising=False)
    assert _fork.fork_refusal() is None, "the test process runs one thread"
    assert _hello()["fork"] is True
    assert "fork" not in _hello(fork=False)
    monkeypatch.setenv("PECHECK_SUBJECT_FORK", "0")
    assert "fork" not in _hello()
    monkeypatch.delenv("PECHECK_SUBJECT_FORK")
    # A second thread: a fork would copy only one of them.
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert "threads run in this process" in _fork.fork_refusal()
        assert "fork" not in _hello()
    finally:
        stop.set()
        thread.join()
    assert "does not declare fork (2 threads run in this process" in capfd.readouterr().err


def test_a_fork_request_after_another_request_is_refused():
    requests = io.BytesIO(b'{"id":0,"op":"hello","protocol":2}\n'
                          b'{"id":1,"op":"rotate","positions":[1],"x":[[1.0,0.0]]}\n'
                          b'{"id":2,"op":"fork","socket":"/nonexistent/a","stderr":"/nonexistent/b"}\n'
                          b'{"id":3,"op":"shutdown"}\n')
    answers = io.BytesIO()
    _serve.serve("s", "float64", rotate=rope, stdin=requests, stdout=answers)
    refusal = json.loads(answers.getvalue().splitlines()[2])
    assert refusal["id"] == 2 and "a copy of it would not be fresh" in refusal["error"]


def test_check_functions_run_history_independence_through_forked_copies():
    forked = pecheck.check_rotary(rope, cases=20)
    assert forked.passed
    assert "history_independence" in {r["property"] for r in forked.results}
    history = next(r for r in forked.results if r["property"] == "history_independence")
    assert history["status"] == "passed" and history["cases"] == 20
    threaded = pecheck.check_rotary(rope, cases=20, fork=False)
    assert threaded.passed
    assert "history_independence" not in {r["property"] for r in threaded.results}
    assert forked.cells == threaded.cells + 1


def _rope_cached_by_length():
    """rotary-embedding-torch #11: the rotation cached by the number of positions, the offset ignored."""
    cache = {}

    def rotate(positions, x):
        x = np.asarray(x, dtype=np.float64)
        key = (len(positions), x.shape[1])
        if key not in cache:
            cache[key] = np.asarray(positions)
        return rope(cache[key], x)
    return rotate


def test_a_cache_keyed_by_length_fails_history_independence_in_process():
    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(_rope_cached_by_length(), dtype="float64", cases=100,
                             properties="history_independence")
    failed = [r for r in caught.value.result.results if r["status"] == "failed"]
    assert [r["property"] for r in failed] == ["history_independence"]
    script = failed[0]["counterexample"]["inputs"]
    assert 2 <= len(script) <= 3, script


def test_the_first_error_of_a_forked_copy_reaches_the_message():
    def broken(positions, x):
        raise KeyError("a bug inside a forked copy")

    with pytest.raises(pecheck.CheckFailed) as caught:
        # It names no framework, and other tests of the session may have imported torch: declared.
        pecheck.check_rotary(broken, dtype="float64", cases=5, framework="numpy")
    assert "KeyError: 'a bug inside a forked copy'" in str(caught.value)


def test_no_forked_copy_outlives_a_check(tmp_path):
    marks = tmp_path / "pids"
    marks.mkdir()

    def rotate(positions, x):
        (marks / str(os.getpid())).touch()
        return rope(positions, x)

    assert pecheck.check_rotary(rotate, dtype="float64", cases=20).passed
    pids = [int(p.name) for p in marks.iterdir()]
    assert len(pids) >= 3 and os.getpid() not in pids, "each instance a copy of its own"
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        assert state in ("Z", "X"), f"copy {pid} still runs ({state})"


_CRASHING_PYTHON_ZYGOTE = """
import os, signal, pecheck
def rotate(positions, x):
    os.kill(os.getpid(), signal.SIGSEGV)  # a crash of the copy, as a native extension's
pecheck.serve("crashing", "float64", rotate=rotate, fork=True)
"""


def _proc_state(pid):
    """(state, exit code) of a process from /proc/PID/stat, None once it is reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None
    return fields[0], int(fields[49])  # fields 3 and 52 of proc(5)


def _ask(zygote, request):
    zygote.stdin.write((json.dumps(request) + "\n").encode())
    zygote.stdin.flush()
    return json.loads(zygote.stdout.readline())


def _fork_copy(zygote, folder, serial, reap):
    """Sends one fork request and accepts the copy's two connections; returns (pid, conversation)."""
    listeners = []
    for suffix in ("log", "sock"):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(folder / f"{serial}.{suffix}"))
        listener.listen(1)
        listener.settimeout(30)
        listeners.append(listener)
    answer = _ask(zygote, {"id": serial, "op": "fork", "socket": str(folder / f"{serial}.sock"),
                           "stderr": str(folder / f"{serial}.log"), "reap": reap})
    pid = answer["result"]["pid"]
    log, conversation = (listener.accept()[0] for listener in listeners)
    log.close()
    return pid, conversation.makefile("rwb")


@pytest.mark.parametrize("zygote_kind", ["python", "plugin"])
def test_a_zygote_reaps_a_crashed_copy_only_once_listed(zygote_kind, tmp_path, package_env):
    """A crashed copy stays a zombie, its signal readable in /proc, however many copies are forked
    after it, until a fork request lists it in reap: pecheck reports the crash by its signal, never
    as a process that just "ended" (the zygote used to reap every ended copy before each fork)."""
    if zygote_kind == "python":
        command = ["/usr/bin/python3", "-c", _CRASHING_PYTHON_ZYGOTE]
        crash = [{"id": 1, "op": "rotate", "positions": [1], "x": [[1.0, 0.0]]}]
    else:
        cli = Path(os.environ.get("PECHECK_BIN", SOURCE / "build" / "pecheck")).resolve()
        plugin = cli.parent / "examples" / "plugin" / "libcrashing_plugin.so"
        command = [str(cli), "serve", f"plugin-inproc:{plugin}"]
        # examples/plugin/broken/crashing_plugin.c: the third encode crashes
        crash = [{"id": i, "op": "encode", "dim": 4, "positions": [0], "seq_len": 1} for i in (1, 2, 3)]
    zygote = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert _ask(zygote, {"id": 0, "op": "hello", "protocol": 2})["result"]["fork"] is True
        crashed, conversation = _fork_copy(zygote, tmp_path, 1, reap=[])
        for request in [{"id": 0, "op": "hello", "protocol": 2}, *crash]:
            conversation.write(json.dumps(request).encode() + b"\n")
        conversation.flush()
        for answered in range(len(crash)):  # hello's, and those before the crash
            assert "result" in json.loads(conversation.readline())
        assert conversation.readline() == b"", "the copy crashed without answering"
        deadline = time.monotonic() + 30
        while _proc_state(crashed)[0] != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        _fork_copy(zygote, tmp_path, 2, reap=[])
        zombie = _proc_state(crashed)
        assert zombie is not None, "not listed, yet reaped: how it ended is lost"
        assert zombie[0] == "Z" and zombie[1] & 0x7F == signal.SIGSEGV, zombie
        _fork_copy(zygote, tmp_path, 3, reap=[crashed])
        assert _proc_state(crashed) is None, "listed: reaped before the fork"
        assert "reap must be a list" in _ask(zygote, {"id": 4, "op": "fork", "socket": str(tmp_path / "4.sock"),
                                                      "stderr": str(tmp_path / "4.log"), "reap": "all"})["error"]
    finally:
        zygote.stdin.close()
        assert zygote.wait(timeout=30) == 0


def _daemon_exec_empty_environment(marks):
    """In a forked copy: a sleeper started as Popen(env={}, start_new_session=True) starts it — its
    own session and group, no marker in its environment — its pid recorded in `marks`."""
    sleeper = subprocess.Popen(["sleep", "3600"], env={}, start_new_session=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (marks / str(sleeper.pid)).touch()


def _running(pid, seconds=2.0):
    """Whether `pid` still runs after waiting up to `seconds` for it to end."""
    until = time.monotonic() + seconds
    while True:
        state = _proc_state(pid)
        if state is None or state[0] in ("Z", "X"):
            return False
        if time.monotonic() > until:
            return True
        time.sleep(0.02)


def test_no_daemon_a_copy_starts_with_an_empty_environment_outlives_a_check(tmp_path):
    """Issue 39: 102 `sleep` processes outlived a 20-case check_rotary whose copies started them
    with Popen(env={}, start_new_session=True): out of the copy's group, without the zygote's marker.
    The zygote is their subreaper: each is killed when the copy that started it has ended."""
    marks = tmp_path / "daemons"
    marks.mkdir()

    def rotate(positions, x):
        _daemon_exec_empty_environment(marks)
        return rope(positions, x)

    assert pecheck.check_rotary(rotate, dtype="float64", cases=20, framework="numpy").passed
    pids = [int(p.name) for p in marks.iterdir()]
    assert len(pids) >= 3, "the copies started daemons"
    left = [pid for pid in pids if _running(pid)]
    assert not left, f"{len(left)} of {len(pids)} daemons outlived the check"


_SLOW_CHECK = """
import os, sys, time, pecheck
sys.path.insert(0, SUPPORT)
from support import rope
def rotate(positions, x):
    time.sleep(0.05)
    return rope(positions, x)
pecheck.check_rotary(rotate, dtype="float64", cases=100000, framework="numpy")
"""


def _children_of(pid):
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat[stat.rfind(b")") + 2:].split()[1]) == pid:
            found.append(int(name))
    return found


def _exe(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _is_pecheck_run(pid):
    """A `pecheck run`, not the short `pecheck check-declarations` the package asks first."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return False
    return os.path.basename(_exe(pid)) == "pecheck" and b"run" in words[1:2]


def test_a_killed_test_process_leaves_no_pecheck_behind(tmp_path, package_env):
    """Issue 39: a `pecheck run` started by the package kept running under init at ~45% CPU after a
    job timeout killed pytest. pecheck ends when the process that started it dies."""
    test_file = tmp_path / "test_slow.py"
    test_file.write_text(f"SUPPORT = {str(Path(__file__).parent)!r}\n\ndef test_slow():\n" +
                         "".join("    " + line + "\n" for line in _SLOW_CHECK.strip().splitlines()))
    parent = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file), "-s"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        pecheck_pid = None
        until = time.monotonic() + 60
        while pecheck_pid is None and time.monotonic() < until:
            for child in _children_of(parent.pid):
                if _is_pecheck_run(child):
                    pecheck_pid = child
            time.sleep(0.05)
        assert pecheck_pid is not None, "pytest started no pecheck"
        time.sleep(1.0)  # in the middle of its run
        assert _running(pecheck_pid, 0)
        parent.kill()  # SIGKILL: no handler of the test process runs
        parent.wait()
        assert not _running(pecheck_pid, 10.0), "pecheck outlived the test process that started it"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt()])
def test_sys_exit_or_an_interrupt_in_the_function_is_named_at_once_without_fork(raised):
    """Issue 39: with fork=False a sys.exit or KeyboardInterrupt in the user's function ended the
    answering thread silently, and pecheck waited out its 10 s timeout: the exception is named and
    pecheck sees the subject end at once."""
    def rotate(positions, x):
        raise raised

    start = time.monotonic()
    result = pecheck.check_rotary(rotate, dtype="float64", cases=5, framework="numpy", fork=False,
                                  raise_on_failure=False, timeout=30)
    elapsed = time.monotonic() - start
    assert not result.passed
    assert f"the checked function raised {type(raised).__name__}" in result.output, result.output
    assert elapsed < 8, f"took {elapsed:.1f} s: a timeout, not the subject's end"

"""Runs the pecheck CLI as a child with this process as its subject (fd:READ,WRITE).

Two pipes are handed down to pecheck (pass_fds). Where this process can fork
safely (pecheck._fork.fork_refusal: one thread, CUDA not initialised, Linux),
a child forked from it answers pecheck on the other ends as a zygote: its
hello declares fork, and every instance pecheck needs (each job's, each fresh
copy history_independence compares with) is a copy forked from that child,
the user's functions as they are at the call, in their own process. Otherwise
a thread of this process answers pecheck's requests itself (one instance;
history_independence is then not run: nothing can be started again). Either
way the calling thread collects pecheck's output and waits for it to exit.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback

from . import _serve
from ._cli import CliNotFound, find_cli
from ._fork import collapse_once, fork_refusal

_JOIN_SECONDS = 10  # how long the answering thread may take to notice that pecheck is gone


def _marked_processes(marker):
    """The processes whose environment holds `marker`=… (this user's, other than this one)."""
    found, needle = [], marker.encode() + b"="
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environment = f.read().split(b"\0")
        except OSError:
            continue
        if any(entry.startswith(needle) for entry in environment):
            found.append(int(name))
    return found


def _kill_marked(marker):
    """Kills every process carrying `marker` (the zygote's copies and whatever they started, even those
    that left its process group), searching until a search finds nothing new."""
    for _ in range(8):
        found = _marked_processes(marker)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _zygote(serve_kwargs, inp, out, marker, errors_dir, report_error):
    """Forks the child that answers pecheck as a zygote; returns its pid."""
    pid = os.fork()
    if pid != 0:
        return pid
    status = 1
    try:
        os.environ[marker] = "1"  # inherited by every copy and what it starts
        _serve.serve(**serve_kwargs, stdin=inp, stdout=out, as_arrays=True, fork=True,
                     _copy_exit=lambda: report_error(errors_dir))
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(status)


def _read_events(stream, progress):
    """pecheck's --progress-fd lines, each a JSON object, to `progress` (until pecheck closes its end)."""
    with stream:
        for line in stream:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            try:
                progress(event)
            except Exception:  # a broken progress display must not break the check
                pass


def run_with_subject(command_head, command_tail, serve_kwargs, first_error=None, progress=None):
    """pecheck `command_head` --subject fd:R,W `command_tail`, served by serve(**serve_kwargs); with
    `progress`, pecheck's progress events (--progress-fd) are passed to it as they come.

    `first_error`: a callable returning the first exception a user function raised (op, traceback) in
    the process that calls it, or None; with forked copies each copy's is collected here.
    Returns (exit code, console output, the command as run, the answering loop's own exception or None,
    the first error of a copy or None)."""
    cli = find_cli()
    # Decided while this process has one thread: the progress reader starts after the zygote's fork.
    forks = serve_kwargs.get("fork", None) is not False and fork_refusal() is None
    if forks:
        collapse_once()  # before pecheck starts waiting for hello; the zygotes of later checks inherit it
    requests_read, requests_write = os.pipe()  # pecheck writes requests, this process reads them
    answers_read, answers_write = os.pipe()    # this process answers, pecheck reads
    events_read, events_write = os.pipe() if progress is not None else (None, None)
    command = [cli, *command_head, "--subject", f"fd:{answers_read},{requests_write}", *command_tail]
    handed = [answers_read, requests_write]
    if progress is not None:
        command += ["--progress-fd", str(events_write)]
        handed.append(events_write)
    try:
        # PECHECK_PARENT_PID: pecheck ends when this process dies (a job timeout's SIGKILL of
        # pytest), rather than run on under init (docs/python.md, "When the caller dies").
        child = subprocess.Popen(command, pass_fds=handed, stdin=subprocess.DEVNULL,
                                 env={**os.environ, "PECHECK_PARENT_PID": str(os.getpid())},
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        for fd in (requests_read, requests_write, answers_read, answers_write, events_read, events_write):
            if fd is not None:
                os.close(fd)
        raise CliNotFound(f"could not start {cli}: {e}") from e
    # pecheck holds its ends now; closing ours lets each side see the other's end of file.
    os.close(answers_read)
    os.close(requests_write)
    if progress is not None:
        os.close(events_write)
    events = None

    def start_events():
        nonlocal events
        if progress is not None:
            events = threading.Thread(target=_read_events, args=(os.fdopen(events_read, "r", encoding="utf-8",
                                                                            errors="replace"), progress),
                                      name="pecheck-progress", daemon=True)
            events.start()

    inp, out = os.fdopen(requests_read, "rb"), os.fdopen(answers_write, "wb")
    failure = []
    copy_errors = []
    if forks:
        marker = f"PECHECK_PYTHON_ZYGOTE_{os.getpid()}_{id(inp):x}"
        errors_dir = tempfile.mkdtemp(prefix="pecheck-copy-errors-")

        def report_error(directory):
            error = first_error() if first_error is not None else None
            if error is not None:
                with open(os.path.join(directory, f"{os.getpid()}.json"), "w", encoding="utf-8") as f:
                    json.dump(list(error), f)

        kwargs = {key: value for key, value in serve_kwargs.items() if key != "fork"}
        zygote = _zygote(kwargs, inp, out, marker, errors_dir, report_error)
        start_events()
        inp.close()  # the zygote's now: pecheck sees its end of file when the zygote ends
        out.close()
        try:
            output, _ = child.communicate()
        except BaseException:  # KeyboardInterrupt in a test run: leave no pecheck behind
            child.kill()
            child.wait()
            raise
        finally:
            if events is not None:
                events.join(_JOIN_SECONDS)
            try:
                os.waitpid(zygote, 0)  # it ends at pecheck's end of file, after its copies
            except ChildProcessError:
                pass
            _kill_marked(marker)
            for name in sorted(os.listdir(errors_dir)):
                try:
                    with open(os.path.join(errors_dir, name), encoding="utf-8") as f:
                        copy_errors.append(tuple(json.load(f)))
                except (OSError, ValueError):
                    pass
            shutil.rmtree(errors_dir, ignore_errors=True)
        return (child.returncode, output.decode("utf-8", "replace"), command, None,
                copy_errors[0] if copy_errors else None)

    def answer():
        try:
            _serve.serve(**serve_kwargs, stdin=inp, stdout=out, as_arrays=True)
        except BaseException as e:  # reported with the result: the loop itself broke
            # sys.exit() or a KeyboardInterrupt raised in the user's function ends this thread too
            # (the loop refuses only an Exception): named with the result, and both streams closed
            # at once, so that pecheck sees the subject end now rather than wait out its timeout.
            failure.append(e)
            for stream in (inp, out):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass

    start_events()
    thread = threading.Thread(target=answer, name="pecheck-subject", daemon=True)
    thread.start()
    try:
        output, _ = child.communicate()
    except BaseException:  # KeyboardInterrupt in a test run: leave no pecheck behind
        child.kill()
        child.wait()
        raise
    finally:
        if events is not None:
            events.join(_JOIN_SECONDS)
        thread.join(_JOIN_SECONDS)
        if not thread.is_alive():  # a function that hangs keeps its thread and its two descriptors
            for stream in (inp, out):
                try:
                    stream.close()
                except OSError:  # pecheck closed its end first: nothing was left to flush anyway
                    pass
    return child.returncode, output.decode("utf-8", "replace"), command, (failure[0] if failure else None), None

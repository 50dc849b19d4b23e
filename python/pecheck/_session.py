"""Runs the pecheck CLI as a child with this process as its subject (fd:READ,WRITE).

Two pipes are handed down to pecheck (pass_fds); a thread of this process
answers its requests on the other ends with pecheck._serve.serve while the
calling thread collects pecheck's output and waits for it to exit.
"""

import json
import os
import subprocess
import threading

from . import _serve
from ._cli import CliNotFound, find_cli

_JOIN_SECONDS = 10  # how long the answering thread may take to notice that pecheck is gone


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


def run_with_subject(command_head, command_tail, serve_kwargs, progress=None):
    """pecheck `command_head` --subject fd:R,W `command_tail`, served by serve(**serve_kwargs); with
    `progress`, pecheck's progress events (--progress-fd) are passed to it as they come.

    Returns (exit code, console output, the command as run, the thread's own exception or None)."""
    cli = find_cli()
    requests_read, requests_write = os.pipe()  # pecheck writes requests, this process reads them
    answers_read, answers_write = os.pipe()    # this process answers, pecheck reads
    events_read, events_write = os.pipe() if progress is not None else (None, None)
    command = [cli, *command_head, "--subject", f"fd:{answers_read},{requests_write}", *command_tail]
    handed = [answers_read, requests_write]
    if progress is not None:
        command += ["--progress-fd", str(events_write)]
        handed.append(events_write)
    try:
        child = subprocess.Popen(command, pass_fds=handed, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        for fd in (requests_read, requests_write, answers_read, answers_write, events_read, events_write):
            if fd is not None:
                os.close(fd)
        raise CliNotFound(f"could not start {cli}: {e}") from e
    # pecheck holds its ends now; closing ours lets each side see the other's end of file.
    os.close(answers_read)
    os.close(requests_write)
    events = None
    if progress is not None:
        os.close(events_write)
        events = threading.Thread(target=_read_events, args=(os.fdopen(events_read, "r", encoding="utf-8",
                                                                        errors="replace"), progress),
                                  name="pecheck-progress", daemon=True)
        events.start()
    inp, out = os.fdopen(requests_read, "rb"), os.fdopen(answers_write, "wb")
    failure = []

    def answer():
        try:
            _serve.serve(**serve_kwargs, stdin=inp, stdout=out, as_arrays=True)
        except Exception as e:  # reported with the result: the loop itself broke
            failure.append(e)

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
    return child.returncode, output.decode("utf-8", "replace"), command, (failure[0] if failure else None)

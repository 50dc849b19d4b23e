"""Fresh copies by fork: the subject side of pecheck's `fork` request (docs/SUBJECT-PROTOCOL.md,
"Fresh copies by fork").

A subject process that has answered only `hello` has done its imports and built its model: a
copy forked from it is in the state a freshly started subject would be in, made in milliseconds
instead of the second or more PyTorch takes to import. serve() declares `"fork": true` where the
process can fork safely, and on a `fork` request forks a copy that connects to the two Unix
sockets pecheck names (its stderr, then its conversation), serves one conversation there, and
exits.

Where a process cannot fork safely, serve() does not declare fork and pecheck starts it afresh
for every copy, as for any subject:
  - more than one thread runs in it (a fork copies only the calling thread: a lock another
    thread holds stays held in the copy forever; OpenMP and CUDA runtimes start threads);
  - PyTorch has initialised CUDA (a CUDA context does not survive a fork);
  - the platform is not Linux (macOS system libraries are not fork-safe without exec);
  - PECHECK_SUBJECT_FORK=0 is set, or serve(fork=False).

Standard library only.
"""

import gc
import os
import signal
import socket
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_MADV_HUGEPAGE, _MADV_COLLAPSE = 14, 25
_HUGE_PAGE = 2 << 20


def fork_refusal():
    """Why this process cannot fork a copy safely now, or None when it can."""
    if os.environ.get("PECHECK_SUBJECT_FORK", "1") == "0":
        return "PECHECK_SUBJECT_FORK=0"
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return f"fresh copies are forked on Linux only (this is {sys.platform})"
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        return "/proc/self/task cannot be read (the threads of this process cannot be counted)"
    if threads > 1:
        return (f"{threads} threads run in this process (a fork copies only one; torch.set_num_threads(1) before "
                "the first computation keeps PyTorch to one)")
    torch = sys.modules.get("torch")
    try:
        cuda = torch is not None and torch.cuda.is_initialized()
    except Exception:  # a torch without CUDA, or one half-imported
        cuda = False
    if cuda:
        return "PyTorch has initialised CUDA (a CUDA context does not survive a fork)"
    return None


def _die_with_parent():
    """The copy is killed when its zygote dies (Linux's PR_SET_PDEATHSIG), best effort."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except Exception:
        pass


def _become_subreaper():
    """Makes this process (the zygote) its descendants' child subreaper (Linux 3.4): a process a copy
    started and left behind when it ended — a daemon that called setsid and exec'd with an empty
    environment, out of reach of any group or marker — becomes this process's child, which
    Copies kills. Best effort: where prctl fails, such a process goes to pecheck or init."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except Exception:
        return False


def _children():
    """This process's children, zombies included: /proc/self/task/PID/children (one file, where the
    kernel has it; the zygote runs one thread), else every process's parent in /proc."""
    me = os.getpid()
    try:
        with open(f"/proc/self/task/{me}/children", "rb") as f:
            return [int(pid) for pid in f.read().split()]
    except (OSError, ValueError):
        pass
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(me).encode():
            found.append(int(name))
    return found


def _collapse_into_huge_pages():
    """Backs this process's private anonymous memory (the heap and the allocators' arenas) by 2 MiB
    pages where Linux allows it (MADV_COLLAPSE, Linux 6.1): a fork then copies one page-table entry
    per 2 MiB instead of 512, and each copy's exit frees as few. For a PyTorch zygote (some 100 MiB of
    its own memory) that halves what each fresh copy costs the machine. Best effort: where the kernel
    refuses, the copies are made as they would have been."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        madvise = libc.madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except (OSError, AttributeError):
        return
    for line in lines:
        fields = line.split()
        if len(fields) < 5 or fields[1] != "rw-p" or (len(fields) > 5 and fields[5] != "[heap]"):
            continue
        start, end = (int(value, 16) for value in fields[0].split("-"))
        start = (start + _HUGE_PAGE - 1) // _HUGE_PAGE * _HUGE_PAGE
        end = end // _HUGE_PAGE * _HUGE_PAGE
        if end - start >= _HUGE_PAGE and madvise(start, end - start, _MADV_HUGEPAGE) == 0:
            madvise(start, end - start, _MADV_COLLAPSE)


_collapsed = []  # this process's heap is backed by huge pages already (collapse_once)


def collapse_once():
    """_collapse_into_huge_pages, once per process: the in-process checks fork a zygote per check from
    the test process, and each inherits the huge pages (a collapse takes a few hundred ms)."""
    if not _collapsed:
        _collapsed.append(True)
        _collapse_into_huge_pages()


def _connect(path):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    return connection


class Copies:
    """The copies one zygote forked: forked, reaped as they end, killed when it stops."""

    def __init__(self):
        self.alive = set()
        self.frozen = False
        self.subreaper = None  # whether this process became its descendants' subreaper (at the first fork)
        self.own = set()  # the children it had before its first copy: its own, never killed

    def kill_orphans(self):
        """Kills and reaps this process's children that are neither copies nor its own: what ended
        copies left behind, reparented here (the zygote is their subreaper). Killing one orphans its
        children in turn: repeated until none is found."""
        if not self.subreaper:
            return 0
        killed = 0
        for _ in range(64):
            orphans = [pid for pid in _children() if pid not in self.alive and pid not in self.own]
            if not orphans:
                break
            for pid in orphans:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            for pid in orphans:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
        return killed

    def reap(self, listed=None):
        """Reaps the copies that ended among `listed` (a fork request's "reap": pecheck has read how
        they ended), or among all of them where the request lists none."""
        for pid in list(self.alive) if listed is None else self.alive.intersection(listed):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.alive.discard(pid)

    def fork(self, socket_path, log_path, serve_copy, streams, reap=None):
        """Forks a copy that connects to `log_path` (as its stderr) and `socket_path`, then runs
        serve_copy(input, output) on the conversation and exits; returns the copy's pid. `streams`
        are the zygote's own protocol streams, which the copy must neither read nor write; `reap`:
        the copies to reap first (all that ended where None)."""
        self.reap(reap)
        if self.subreaper is None:
            self.subreaper = _become_subreaper()
            self.own = set(_children()) if self.subreaper else set()
        self.kill_orphans()
        if not self.frozen:
            # Objects made so far stay out of the collector's way: the copies' collections then
            # do not touch (and copy) the zygote's pages.
            if hasattr(gc, "freeze"):
                gc.freeze()
            _collapse_into_huge_pages()
            self.frozen = True
        for stream in (sys.stdout, sys.stderr, *streams):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        pid = os.fork()
        if pid != 0:
            self.alive.add(pid)
            return pid
        status = 3
        try:
            _die_with_parent()
            log = _connect(log_path)
            os.dup2(log.fileno(), 2)
            log.close()
            conversation = _connect(socket_path)
            # The zygote's streams point at /dev/null in the copy (not closed: their file objects
            # would close whatever reused the numbers): pecheck sees the zygote's end of file
            # when the zygote ends, whatever copies still run.
            null = os.open(os.devnull, os.O_RDWR)
            for stream in streams:
                try:
                    if stream.fileno() > 2:
                        os.dup2(null, stream.fileno())
                except (OSError, ValueError):
                    pass
            os.dup2(null, 0)
            os.close(null)
            os.dup2(2, 1)  # a stray print lands in the copy's stderr, never in the zygote's answers
            serve_copy(conversation.makefile("rb"), conversation.makefile("wb"))
            status = 0
        except BaseException as e:  # the copy's own failure: said on its stderr, and its exit status
            try:
                sys.stderr.write(f"pecheck: the forked copy failed: {type(e).__name__}: {e}\n")
                sys.stderr.flush()
            except Exception:
                pass
        finally:
            try:
                sys.stderr.flush()
            except Exception:
                pass
            os._exit(status)

    def stop(self):
        """Kills the copies still running (the zygote is ending) and reaps them."""
        for pid in list(self.alive):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in list(self.alive):
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.alive.clear()
        self.kill_orphans()

"""A check's progress on a terminal, drawn from pecheck's progress events (pecheck run --progress-fd).

Events (one JSON object per line from the CLI): {"event": "plan", "cells": N};
{"event": "progress", "property", "subject", "cases", "planned", "refused", "shrinks", "seconds"};
{"event": "slow", "property", "message"} once when a cell runs slower than expected;
{"event": "cell", "property", "status", "seconds", "refused", "done", "cells"} when a cell ends.
"""

import sys
import threading
import time

_WIDTH = 100  # characters of the live line at most: \r redraws only what did not wrap

# The properties whose "slow" note this process has shown: a note says once per run (a pytest session
# runs many checks) that a property is slow, not once per check.
_SLOW_NOTED = set()


def stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def describe(event, name):
    """The live line for one progress event."""
    kind = event.get("event")
    if kind == "progress":
        text = (f"pecheck {name}: {event.get('property')} {event.get('cases', 0)}/{event.get('planned', 0)} "
                f"cases")
        if event.get("refused"):
            text += f", {event['refused']} refused"
        if event.get("shrinks"):
            text += f", {event['shrinks']} shrinks"
        text += f", {float(event.get('seconds', 0)):.1f} s"
        return text
    return None


class TerminalProgress:
    """Draws one live line with `write` (default: stderr); `slow` notes stay as lines of their own, one per
    property in this process.
    `restore`, when given, is written when the display closes (the pytest plugin puts the cursor back
    where pytest left it)."""

    def __init__(self, name, write=None, start="", restore=""):
        self.name = name
        self._write = write or self._stderr
        self._start, self._restore = start, restore
        self._lock = threading.Lock()
        self._shown = False
        self._started = False
        self._cells = None
        self._done = 0
        self._last = 0.0

    @staticmethod
    def _stderr(text):
        sys.stderr.write(text)
        sys.stderr.flush()

    def _draw(self, text):
        if not self._started:
            self._write(self._start)
            self._started = True
        if len(text) > _WIDTH:
            text = text[:_WIDTH - 1] + "…"
        self._write("\r\x1b[K" + text)
        self._shown = True

    def __call__(self, event):
        with self._lock:
            kind = event.get("event")
            if kind == "plan":
                self._cells = event.get("cells")
                return
            if kind == "cell":
                self._done = event.get("done", self._done + 1)
                return
            if kind == "slow":
                if event.get("property") in _SLOW_NOTED:
                    return
                _SLOW_NOTED.add(event.get("property"))
                self._draw(f"pecheck {self.name}: {event.get('message', '')}")
                self._write("\n")
                self._shown = False
                return
            text = describe(event, self.name)
            if text is None:
                return
            now = time.monotonic()
            if now - self._last < 0.1:
                return
            self._last = now
            if self._cells:
                text += f" · cell {self._done + 1} of {self._cells}"
            self._draw(text)

    def close(self):
        with self._lock:
            if self._shown:
                self._write("\r\x1b[K")
                self._shown = False
            if self._started:
                self._write(self._restore)
                self._started = False

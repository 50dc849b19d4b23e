#!/usr/bin/env python3
"""Subjects whose fork is broken, one per mode (the first argument).

Each declares "fork": true in its hello (docs/SUBJECT-PROTOCOL.md, "Fresh
copies by fork") and serves a sinusoidal encoder whose table is cached by the
number of positions asked, the offset ignored (rotary-embedding-torch #11's
bug): a copy that is not fresh answers differently from one that is. pecheck
must end every run on these with a subject failure (exit 3) naming what went
wrong, never with a verdict on the encoder.

    dies            the copy exits (status 7) before connecting to its sockets
    never-connects  the copy sleeps instead of connecting
    inline          no fork: the zygote serves the conversation itself, so every
                    "copy" shares one cache (and answers its own pid)
    chain           each copy after the first is forked by the copy before it,
                    after that one served its conversation (a copy with a history)
    reuse           one worker serves every conversation in turn (a pool that
                    reuses its processes)
    wrong-hello     the copy answers hello under another name
    refuses         the zygote answers fork with an error
    ok              a correct zygote (the control)
    slow-fork       a correct zygote whose first fork answer takes 3 s, as when a
                    loaded kernel holds fork(2): not a failure, whatever the
                    subject timeout (the fork answer has at least 60 s)
    garbage         the second copy writes a line of garbage to the stdout it
                    inherited (the zygote's answers) before connecting
    twice           the zygote answers the second fork twice
    exits           the zygote exits at the third fork request, unanswered, while
                    its copies (which inherited its stdout) live on
    connects-twice  the second copy connects to its conversation socket twice,
                    serving the second connection and leaving the first silent

Standard library only; the raw protocol is spoken here on purpose.
"""
import json
import os
import select
import socket
import sys
import time

from plain_sinusoid import sinusoid_rows

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
MODES = ("dies", "never-connects", "inline", "chain", "reuse", "wrong-hello", "refuses", "ok", "slow-fork", "garbage",
         "twice", "exits", "connects-twice")
HELLO = {"protocol": 2, "name": "cached-sinusoidal", "ops": ["encode"], "dtype": "float64", "fork": True}
_table = {}  # number of positions -> the rows computed first for that many (the bug)


def encode(dim, positions):
    key = (dim, len(positions))
    return _table.setdefault(key, sinusoid_rows(dim, positions))


def answer(request, hello):
    """The answer line to one request of a conversation, or None after shutdown's."""
    rid, op = request["id"], request["op"]
    if op == "hello":
        return {"id": rid, "result": hello}
    if op == "shutdown":
        return {"id": rid, "result": None}
    if op == "encode":
        return {"id": rid, "result": encode(request["dim"], request["positions"])}
    return {"id": rid, "error": f"unsupported op {op!r}"}


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


class Conversation:
    """Connects to the stderr and conversation sockets; reads requests and writes answers there."""

    def __init__(self, paths):
        log = connect(paths[1])
        os.dup2(log.fileno(), 2)
        self.socket = connect(paths[0])
        self.reader, self.writer = self.socket.makefile("r"), self.socket.makefile("w")

    def fileno(self):
        return self.socket.fileno()

    def answer_one(self, hello=HELLO):
        """Answers the next request; False once the conversation is over."""
        line = self.reader.readline()
        if not line:
            return False
        reply = answer(json.loads(line), hello)
        self.writer.write(json.dumps(reply) + "\n")
        self.writer.flush()
        return not (reply["result"] is None and "error" not in reply)


def serve_one(paths, hello=HELLO):
    if MODE == "connects-twice" and SERIAL == 2:
        silent = connect(paths[0])  # noqa: F841  (held open, never served)
    conversation = Conversation(paths)
    while conversation.answer_one(hello):
        pass


def serve_many(paths, commands, answers):
    """chain and reuse: serves conversations while listening for the zygote's next fork on
    `commands` (the paths of the next copy's sockets; the pid goes back on `answers`). chain
    forks the next copy from this process, which has served requests (the new copy takes
    over the commands); reuse serves the next conversation in this very process."""
    conversations = [Conversation(paths)]
    while True:
        ready, _, _ = select.select(conversations + ([commands] if commands else []), [], [])
        for f in ready:
            if f is commands:
                line = commands.readline()
                if not line:
                    os._exit(0)
                paths = json.loads(line)
                if MODE == "reuse":
                    answers.write(f"{os.getpid()}\n")
                    answers.flush()
                    try:
                        conversations.append(Conversation(paths))
                    except OSError:  # pecheck refused this copy (and closed its sockets): serve on
                        pass
                    continue
                pid = os.fork()
                if pid != 0:
                    answers.write(f"{pid}\n")
                    answers.flush()
                    commands = None  # the new copy listens now
                    continue
                conversations = [Conversation(paths)]
                break
            try:
                alive = f.answer_one()
            except OSError:  # a conversation pecheck refused (its socket reset): the others go on
                alive = False
            if not alive:
                conversations.remove(f)
                if not conversations and commands is None:
                    os._exit(0)


SERIAL = 0  # the fork request being answered, from 1


def fork_copy(paths):
    pid = os.fork()
    if pid != 0:
        return pid
    try:
        if MODE == "garbage" and SERIAL == 2:
            os.write(1, b"Loading checkpoint shards: 100%\n")
        if MODE == "dies":
            os._exit(7)
        if MODE == "never-connects":
            time.sleep(3600)
        serve_one(paths, dict(HELLO, name="another-name") if MODE == "wrong-hello" else HELLO)
    finally:
        os._exit(0)


def main():
    global SERIAL
    if MODE not in MODES:
        sys.exit(f"usage: broken_fork.py {{{'|'.join(MODES)}}}")
    helper = None  # chain, reuse: (pipe to the template, pipe from it)
    forks = 0
    for line in sys.stdin:
        request = json.loads(line)
        rid, op = request["id"], request["op"]
        if op == "hello":
            answer = {"id": rid, "result": HELLO}
        elif op == "shutdown":
            print(json.dumps({"id": rid, "result": None}), flush=True)
            return
        elif op == "fork":
            paths = (request["socket"], request["stderr"])
            forks += 1
            SERIAL = forks
            if MODE == "exits" and forks == 3:
                os._exit(0)
            if MODE == "slow-fork" and forks == 1:
                time.sleep(3)
            if MODE == "refuses":
                answer = {"id": rid, "error": "fork is broken here"}
            elif MODE == "inline":
                print(json.dumps({"id": rid, "result": {"pid": os.getpid()}}), flush=True)
                serve_one(paths)
                continue
            elif MODE in ("chain", "reuse") and helper is not None:
                helper[0].write(json.dumps(paths) + "\n")
                helper[0].flush()
                answer = {"id": rid, "result": {"pid": int(helper[1].readline())}}
            elif MODE in ("chain", "reuse"):
                from_zygote, to_template = os.pipe()  # (read, write): the zygote's commands
                from_template, to_zygote = os.pipe()  # the template's answers
                pid = os.fork()
                if pid == 0:
                    os.close(to_template)
                    os.close(from_template)
                    serve_many(paths, os.fdopen(from_zygote, "r"), os.fdopen(to_zygote, "w"))
                os.close(from_zygote)
                os.close(to_zygote)
                helper = (os.fdopen(to_template, "w"), os.fdopen(from_template, "r"))
                answer = {"id": rid, "result": {"pid": pid}}
            else:
                answer = {"id": rid, "result": {"pid": fork_copy(paths)}}
                if MODE == "twice" and forks == 2:
                    print(json.dumps(answer), flush=True)
        else:
            answer = {"id": rid, "error": f"a zygote answers hello and fork only, not {op!r}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()

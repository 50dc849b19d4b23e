#!/usr/bin/env python3
"""A subject whose hello result is the first argument, verbatim (a JSON object).

For tests of what pecheck accepts in a hello: declarations it does not know,
values out of range. It refuses every other request and exits on shutdown.
Standard library only; the raw protocol is spoken on purpose.
"""
import json
import sys

HELLO = json.loads(sys.argv[1])

for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        answer = {"id": request["id"], "result": HELLO}
    elif request["op"] == "shutdown":
        answer = {"id": request["id"], "result": None}
    else:
        answer = {"id": request["id"], "error": "this subject only says hello"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    if request["op"] == "shutdown":
        break

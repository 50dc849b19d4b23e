#pragma once
// The subject side of the JSON Lines protocol (SUBJECT-PROTOCOL.md, versions
// 1 and 2): answers requests read from `in` with any in-process Subject, one
// response line per request, flushed. `pecheck serve SPEC` runs it on
// stdin/stdout; the CLI uses it to run C plugins in a child process, and
// tests use it to speak the protocol with built-in subjects.
//
// Its hello answers the protocol asked for (1 or 2). For 2 it declares the
// subject's compute and params (what its SubjectInfo declares), "batch": true
// and "arrays": ["b64le"]. It answers encode, attention, rotate (with
// seq_len), bias, forward, decode, reset and batch (item by item: each item
// may be refused alone); an answer's arrays are b64le where its request sent
// b64le, JSON numbers otherwise. A request it cannot read is refused with
// an error answer (id null when even the id is unreadable).
//
// With ServeOptions::fork it is also a zygote (docs/SUBJECT-PROTOCOL.md,
// "Fresh copies by fork"): its hello declares "fork": true, and while it has
// answered nothing but hello and fork, a fork request forks a copy that
// connects to the request's sockets and serves one conversation there (the
// subject object as it was: a plugin loaded and its info read, nothing
// called), then exits; the zygote answers the copy's pid and reaps its
// copies as they end.
#include <iosfwd>
#include <string>
#include <string_view>

#include "pecheck/subjects/subject.h"

namespace pecheck {

struct ServeOptions {
  // Declare fork and fork copies on request: only for a process that serves
  // on its own stdin/stdout and can fork (fork_safe()).
  bool fork = false;
};

// Whether this process can fork a copy of itself safely now: it runs one
// thread (a fork copies only the calling one; locks another held stay held).
bool fork_safe();

// Returns the process exit status: 0 after `shutdown` or at the end of the
// input; 3 when the subject failed (the message goes to `log`, and the
// harness on the other side sees the exit and the log as a subject failure).
int serve(Subject& subject, std::istream& in, std::ostream& out, std::ostream& log, const ServeOptions& options = {});

// The response line (without newline) to one request line. Throws
// SubjectFailure when the subject broke while answering.
std::string answer(Subject& subject, std::string_view request_line, bool& shutdown);

// Bare NaN, Infinity and -Infinity tokens (outside strings) quoted, so a JSON
// parser reads them as the strings core/json.h understands.
std::string quote_non_finite_tokens(std::string_view line);

}  // namespace pecheck

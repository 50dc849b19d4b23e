#pragma once
// Subjects that answer the JSON Lines subject protocol (SUBJECT-PROTOCOL.md,
// versions 1 and 2) from outside pecheck:
//   cmd:COMMAND     a child process pecheck starts. A command that is a plain
//                   list of words (quoted as in a POSIX shell) is exec'd
//                   directly; one that needs a shell (pipes, redirections,
//                   `$`, `;`, `&&`, globs, `~`, an assignment or a shell
//                   builtin first) runs under /bin/sh -c. Its process group
//                   and every descendant that left the group are killed and
//                   reaped when it stops.
//   fd:READ,WRITE   descriptors inherited from the process that started
//                   pecheck (e.g. Python's subprocess with pass_fds): pecheck
//                   writes requests to WRITE and reads answers from READ,
//                   starting nothing. Both must be open, above 2, READ
//                   readable and WRITE writable (they may be one socket).
//                   pecheck closes them when it is done (the other side then
//                   reads end of input); it sees no stderr of that side.
// Both get the same handshake, timeouts and breach handling. Each request has
// options.timeout_seconds to be answered (a `batch` request, one line, too);
// after any breach the subject is stopped and every later call throws the
// same SubjectFailure. A subject that declared "batch": true gets
// perform_batch's calls in one `batch` request (and is a BatchingSubject, so
// the look-ahead can post them and collect the answers later), and one that listed "b64le" in `arrays` gets every matrix, tensor
// and vector as a b64le array; answers may come in either form.
#include <string>
#include <string_view>

#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

// Starts `command`, says hello and returns the subject. Throws SubjectFailure
// when it cannot start or breaks the handshake, BadDeclaration when its hello
// declares what pecheck does not know or cannot accept.
SubjectPtr make_process_subject(const std::string& command, const SubjectOptions& options);

// `fds` is "READ,WRITE" (what follows fd:). Throws BadSubjectSpec for a
// malformed spec or descriptors that are not open the right way, else as
// make_process_subject.
SubjectPtr make_fd_subject(std::string_view fds, const SubjectOptions& options);

// Kills and reaps every process that ended up this process's child without
// being a cmd: subject it started and still runs: pecheck is a child
// subreaper, so whatever a subject's descendants left behind — a daemon that
// called setsid and exec'd with an empty environment (no group, no marker)
// — is reparented to it once its parent dies. `pecheck run` calls this
// before it exits, after its subjects stopped, so no process outlives the
// run. Not for a process that has children of its own to keep (a test
// harness): it kills them. Returns how many it killed.
int kill_leftover_processes();

}  // namespace pecheck

#pragma once
// A subject that runs as a child process and answers the JSON Lines subject
// protocol (SUBJECT-PROTOCOL.md): `cmd:COMMAND` on the command line.
#include <string>

#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

// Starts `/bin/sh -c command`, says hello and returns the subject. Throws
// SubjectFailure when it cannot start or breaks the handshake. Each request
// has options.timeout_seconds to be answered; after any protocol breach the
// subject is killed and every later call throws the same SubjectFailure.
SubjectPtr make_process_subject(const std::string& command, const SubjectOptions& options);

}  // namespace pecheck

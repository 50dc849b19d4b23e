#pragma once
// Subjects by spec: builtin:NAME, mutant:NAME, cmd:COMMAND, plugin:PATH.
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/subjects/subject.h"

namespace pecheck {

// A spec that names nothing (a usage or configuration error: exit 2).
struct BadSubjectSpec : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct SubjectOptions {
  double timeout_seconds = 10;   // per request, for process subjects
  // A pecheck executable that can `serve` (the CLI passes its own path). With
  // it, plugin:PATH runs the plugin in a child process, so a crash in plugin
  // code is a subject failure; without it, plugins load into this process.
  std::string executable;
};

// Throws BadSubjectSpec for an unknown spec, SubjectFailure when a subject
// cannot be started or breaks during its handshake.
SubjectPtr make_subject(std::string_view spec, const SubjectOptions& options = {});

}  // namespace pecheck

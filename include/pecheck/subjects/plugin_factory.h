#pragma once
// The factory's plugin kinds:
//   plugin:PATH         in a child process (`EXE serve plugin-inproc:PATH`)
//                       when options.executable is set, else in-process;
//   plugin-inproc:PATH  always in this process (what the child runs).
// An empty PATH is a malformed spec (BadSubjectSpec, exit 2); a file that
// cannot be loaded as a plugin is a subject failure (SubjectFailure, exit 3),
// as is a plugin that crashes.
#include <string_view>

#include "pecheck/subjects/factory.h"

namespace pecheck {

// `spec` is of kind SubjectKind::plugin or SubjectKind::plugin_inproc; its payload is the PATH.
SubjectPtr make_plugin(const SubjectSpec& spec, const SubjectOptions& options);

}  // namespace pecheck

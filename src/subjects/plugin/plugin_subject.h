#pragma once
// A subject backed by a C ABI plugin loaded into this process
// (spec plugin-inproc:PATH). A crash in plugin code takes this process with
// it, which is why the CLI runs plugins through `pecheck serve` in a child.
#include <string>

#include "pecheck/subjects/factory.h"

namespace pecheck {

// Throws SubjectFailure when the library cannot be loaded or is not a plugin.
SubjectPtr make_plugin_subject(const std::string& path, const SubjectSpec& spec);

}  // namespace pecheck

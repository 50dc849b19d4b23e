#pragma once
// Built-in rope subjects (see CLAIMS.md).
#include <vector>

#include "subjects/builtin/builtins.h"

namespace pecheck {

std::vector<SubjectEntry> rope_builtins();

}  // namespace pecheck

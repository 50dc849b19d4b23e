#pragma once
// Built-in combine subjects (see CLAIMS.md).
#include <vector>

#include "subjects/builtin/builtins.h"

namespace pecheck {

std::vector<SubjectEntry> combine_builtins();

}  // namespace pecheck

#pragma once
// Built-in attention subjects (see CLAIMS.md).
#include <vector>

#include "subjects/builtin/builtins.h"

namespace pecheck {

std::vector<SubjectEntry> attention_builtins();

}  // namespace pecheck

#include "subjects/builtin/rope.h"

namespace pecheck {

std::vector<SubjectEntry> rope_builtins() { return {}; }

}  // namespace pecheck

#include "subjects/builtin/combine.h"

namespace pecheck {

std::vector<SubjectEntry> combine_builtins() { return {}; }

}  // namespace pecheck

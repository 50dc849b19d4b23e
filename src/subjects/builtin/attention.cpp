#include "subjects/builtin/attention.h"

namespace pecheck {

std::vector<SubjectEntry> attention_builtins() { return {}; }

}  // namespace pecheck

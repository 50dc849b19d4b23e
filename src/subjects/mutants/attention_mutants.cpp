#include "subjects/mutants/mutants.h"

namespace pecheck {

std::vector<SubjectEntry> attention_mutants() { return {}; }

}  // namespace pecheck

#include "subjects/mutants/mutants.h"

namespace pecheck {

std::vector<SubjectEntry> rope_mutants() { return {}; }

}  // namespace pecheck

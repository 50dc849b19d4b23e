#include "subjects/mutants/mutants.h"

namespace pecheck {

std::vector<SubjectEntry> encoder_mutants() { return {}; }

}  // namespace pecheck

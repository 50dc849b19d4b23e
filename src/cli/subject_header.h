#pragma once
// What `pecheck run` says about a subject before checking it: the name it
// declares, the precision of its answers, the conventions it is judged by
// (declared, or the defaults when it declares none) and the profile chosen —
// so a reader knows what a green covers before the first cell.
#include <string>

#include "pecheck/runner/session.h"

namespace pecheck::cli {

// Lines ending in '\n'; empty for a subject that could not be started.
std::string subject_header(const PlannedSubject& planned, const std::string& label);

}  // namespace pecheck::cli

#pragma once
// Golden-file comparison: the text must equal tests/golden/NAME. With
// PECHECK_UPDATE_GOLDEN=1 the file is rewritten instead (then review the diff).
#include <string>

namespace pecheck::testing {

// Returns an empty string when equal, else a description of the first difference.
std::string compare_golden(const std::string& name, const std::string& text);

}  // namespace pecheck::testing

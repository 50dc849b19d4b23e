#pragma once
// The terminal view: one progress line per cell and the claims matrix.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

std::string progress_line(const PropertyResult& result);
std::string write_console_matrix(const RunReport& report);

}  // namespace pecheck

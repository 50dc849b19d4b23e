#pragma once
// A JSON value as one line of text for a report: invalid UTF-8 in a
// subject's strings is replaced, never thrown on.
#include <string>

#include "pecheck/core/json.h"

namespace pecheck::report_text {

inline std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace pecheck::report_text

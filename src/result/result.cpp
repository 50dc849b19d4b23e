#include "pecheck/result/result.h"

namespace pecheck {

std::string_view name(Outcome o) {
  switch (o) {
    case Outcome::holds: return "holds";
    case Outcome::violated: return "violated";
    case Outcome::error: return "error";
    case Outcome::skipped: return "skipped";
  }
  return "?";
}

std::string_view name(Status s) {
  switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::error: return "error";
    case Status::skipped: return "skipped";
  }
  return "?";
}

int exit_code_for(const std::vector<PropertyResult>& results) {
  bool failed = false;
  for (const auto& r : results) {
    if (r.subject_failure) return 3;
    if (r.status == Status::failed || r.status == Status::error) failed = true;
  }
  return failed ? 1 : 0;
}

}  // namespace pecheck

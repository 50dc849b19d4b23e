#include "pecheck/property/fresh.h"

#include <fmt/format.h>

#include "pecheck/subjects/factory.h"

namespace pecheck {

bool can_start_afresh(const SubjectInfo& subject) {
  for (std::string_view kind : {"builtin:", "mutant:", "cmd:"}) {
    if (std::string_view(subject.spec).starts_with(kind)) return true;
  }
  return false;
}

FreshSubject fresh_subject(const SubjectInfo& subject, const FreshSubject& given) {
  if (given) return given;
  if (!can_start_afresh(subject)) {
    return [spec = subject.spec]() -> SubjectPtr {
      throw Refusal(fmt::format("{} cannot be started again as a fresh copy (only builtin:, mutant: and cmd: "
                                "subjects can)",
                                spec));
    };
  }
  return [spec = subject.spec] { return make_subject(spec); };
}

}  // namespace pecheck

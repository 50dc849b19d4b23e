#include "pecheck/property/fresh.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/factory.h"

namespace pecheck {

namespace {

bool forks(const SubjectInfo& subject) {
  return std::find(subject.declared.begin(), subject.declared.end(), "fork") != subject.declared.end();
}

bool restartable_spec(const SubjectInfo& subject) { return starts_again_from_spec(subject.spec.kind); }

}  // namespace

bool starts_from_spec(const SubjectInfo& subject) { return restartable_spec(subject); }

bool can_start_afresh(const SubjectInfo& subject) { return forks(subject) || restartable_spec(subject); }

FreshSubject fresh_subject(const SubjectInfo& subject, const FreshSubject& given) {
  if (given) return given;
  if (!restartable_spec(subject)) {
    return [spec = subject.spec]() -> SubjectPtr {
      throw Refusal(fmt::format("{} cannot be started again as a fresh copy (only {}, {} and {} subjects can, and "
                                "subjects whose hello declares fork)",
                                format_spec(spec), kind_prefix(SubjectKind::builtin), kind_prefix(SubjectKind::mutant),
                                kind_prefix(SubjectKind::cmd)));
    };
  }
  return [spec = subject.spec] { return make_subject(spec); };
}

FreshSubject fresh_subject(Subject& subject, const FreshSubject& given) {
  if (given) return given;
  if (makes_fresh_copies(subject)) return [&subject] { return fresh_copy_of(subject); };
  return fresh_subject(subject.info(), given);
}

}  // namespace pecheck

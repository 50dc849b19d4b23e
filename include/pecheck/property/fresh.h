#pragma once
// A subject with no history: a fresh copy of the subject under test, which
// history_independence (CLAIMS.md §7) compares answers with. The runner
// provides one (GenContext::fresh: a forked copy where the subject makes
// them, subjects/copies.h, else one started again with the run's timeout
// and executable); otherwise the property makes one here: a forked copy of
// the subject it is given, or one started again from its spec.
#include <functional>

#include "pecheck/subjects/subject.h"

namespace pecheck {

using FreshSubject = std::function<SubjectPtr()>;

// Whether a fresh copy of the subject can be had: it forks copies of itself
// (its hello declared fork and pecheck uses it: "fork" among its declared
// fields), or its spec names a subject that can be started again, as new as
// the first: builtin:, mutant: (a new object) and cmd: (a new process). Not
// fd: without fork (the descriptors belong to the one running copy) nor
// plugin: (a library loaded again shares its state with the loaded one) nor
// an object handed in by the C++ adapter.
bool can_start_afresh(const SubjectInfo& subject);

// Whether the subject's spec starts a new, independent copy (builtin:,
// mutant:, cmd:) — a copy that shares nothing with the running one, not even
// memory mapped before a fork.
bool starts_from_spec(const SubjectInfo& subject);

// `given` when set; else a maker that starts the subject again from its spec
// (make_subject with default options). Calling it for a subject that cannot
// be started again throws Refusal, so the case is discarded with the reason.
FreshSubject fresh_subject(const SubjectInfo& subject, const FreshSubject& given = {});

// `given` when set; else `subject`'s forked copies where it makes them; else
// as above from its spec. `subject` must outlive the maker.
FreshSubject fresh_subject(Subject& subject, const FreshSubject& given = {});

}  // namespace pecheck

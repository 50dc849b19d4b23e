#pragma once
// A subject with no history: a freshly started copy of the subject under
// test, which history_independence (CLAIMS.md §7) compares answers with.
// The runner may provide one (GenContext::fresh, with its own timeout and
// executable); otherwise the property starts one from the subject's spec
// here, which works for specs that name a way to start it again.
#include <functional>

#include "pecheck/subjects/subject.h"

namespace pecheck {

using FreshSubject = std::function<SubjectPtr()>;

// Whether the spec names a subject that can be started again, as new as the
// first: builtin:, mutant: (a new object) and cmd: (a new process). Not fd:
// (the descriptors belong to the one running copy) nor plugin: (a library
// loaded again shares its state with the loaded one) nor an object handed in
// by the C++ adapter.
bool can_start_afresh(const SubjectInfo& subject);

// `given` when set; else a maker that starts the subject again from its spec
// (make_subject with default options). Calling it for a subject that cannot
// be started again throws Refusal, so the case is discarded with the reason.
FreshSubject fresh_subject(const SubjectInfo& subject, const FreshSubject& given = {});

}  // namespace pecheck

#pragma once
// Starting a subject from a run's options: the one place RunOptions becomes
// the factory's SubjectOptions, and the declarations of pecheck.toml are laid
// over what the subject declares. plan() starts the planned instances with it
// (by default), a parallel job its own, and a cell its fresh copies.
#include <functional>
#include <string>

#include "pecheck/runner/options.h"
#include "pecheck/subjects/factory.h"

namespace pecheck {

// What the subject factory needs of the options: the per-request timeout,
// the executable that serves plugins, and whether fork declarations are used.
SubjectOptions subject_options(const RunOptions& options);

// make_subject with subject_options(options), and the options' declarations
// for `spec` laid over its own. A declaration the subject cannot take throws
// BadDeclaration, naming its file and line when pecheck.toml gave it.
SubjectPtr make_subject_for(const SubjectSpec& spec, const RunOptions& options);

using SubjectMaker = std::function<SubjectPtr(const SubjectSpec& spec, const RunOptions& options)>;

}  // namespace pecheck

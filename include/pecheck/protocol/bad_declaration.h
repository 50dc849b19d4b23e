#pragma once
// A declaration pecheck cannot accept (the hello's params, pecheck.toml's
// declarations, a model config): the protocol's readers throw it, and
// subjects/factory.h re-exports it for the callers that start subjects.
#include <string>
#include <utility>

#include "pecheck/core/subject_spec.h"  // BadSubjectSpec: a spec that names nothing (exit 2)

namespace pecheck {

// A subject declared something pecheck does not know or cannot accept: a
// field it does not know (params.rotate.rope_theta), a value of the wrong type
// or out of range (a base ≤ 0, an odd rotary_dim, an unknown scaling type),
// params for an op the subject does not declare (SUBJECT-PROTOCOL.md v2:
// "a usage error (exit 2) naming the field", never silently ignored). A
// BadSubjectSpec, so whoever maps those to exit 2 maps this too.
struct BadDeclaration : BadSubjectSpec {
  BadDeclaration(std::string field, const std::string& what) : BadSubjectSpec(what), field(std::move(field)) {}
  std::string field;  // the dotted path of the field at fault, e.g. "params.rotate.rope_theta"
};

}  // namespace pecheck

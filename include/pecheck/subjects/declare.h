#pragma once
// Declarations stated for a subject from outside it (pecheck.toml's
// [subject."SPEC"] tables): the same fields as a version-2 hello — dtype,
// layout, compute, params — read with the same rules and the same errors
// (SUBJECT-PROTOCOL.md v2; an unknown field or a bad value is a
// BadDeclaration naming the field, a usage error), laid over what the
// subject declares itself: a field given here wins, the rest is kept.
#include "pecheck/core/json.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

// Reads `declared` ({"dtype": …, "layout": …, "compute": {…}, "params": {…}})
// into `info`. Throws BadDeclaration (subjects/factory.h).
void apply_declarations(const json& declared, SubjectInfo& info);

// The params `info` declares, as a version-2 hello's `params` object (empty
// when it declares none); apply_declarations({"params": …}) over the same
// ops reads them back into the same conventions.
json declared_params(const SubjectInfo& info);

// `subject` with `declared` laid over its info; every request is forwarded.
// Throws BadDeclaration as apply_declarations does.
SubjectPtr with_declarations(SubjectPtr subject, const json& declared);

}  // namespace pecheck

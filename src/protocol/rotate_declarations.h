#pragma once
// params.rotate, and each layer's rotate in params.forward.layers: a rotary
// convention read from a hello (or pecheck.toml, or the Python package), with
// transformers' spellings accepted beside the protocol's, and written back.
#include <string>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/json.h"
#include "protocol/declarations.h"

namespace pecheck::process {

// The layouts a rotary may declare: interleaved, halves, interleave_then_halves.
const Keys& rotate_layout_names();

// The object at `path` ("params.rotate") as a convention; every field read is
// recorded in `declared` by its canonical dotted path. Refuses (BadDeclaration)
// unknown fields, wrong types and ranges, and lists that disagree on the
// number of rotated pairs.
RotateConvention read_rotate_convention(const json& object, const std::string& path,
                                        std::vector<std::string>& declared);

// The convention as a canonical params.rotate object (base only when
// `with_base`: a v1-style subject that never declared it keeps its silence).
json rotate_json(const RotateConvention& convention, bool with_base);

}  // namespace pecheck::process

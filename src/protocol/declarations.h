#pragma once
// The conventions a version-2 hello declares (SUBJECT-PROTOCOL.md): its
// `compute` and `params` objects, read into SubjectInfo field by field and
// written back from it. Reading refuses, as a BadDeclaration naming the field
// (a usage error, exit 2), every field pecheck does not know, every value of
// the wrong type or out of range, and params for an op the subject does not
// declare; each field read is recorded by its dotted path in info.declared.
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/protocol/bad_declaration.h"

namespace pecheck::process {

// `compute` and `params` of a hello; read_params needs info.ops already read.
void read_compute(const json& object, SubjectInfo& info);
void read_params(const json& object, SubjectInfo& info);

// What SubjectInfo declares, as a hello's `compute` and `params` (empty
// objects when nothing is): the compute stages set; the params fields in
// info.declared, and rotary_dim/fraction, layouts, scaling, bias and forward
// wherever they are set.
json compute_json(const SubjectInfo& info);
json params_json(const SubjectInfo& info);

// Each op's params.<op> is read and written by its codec (src/protocol/,
// ParamsCodec); what they share is below.

// Names from a fixed list, and the refusal.
using Keys = std::vector<std::string_view>;
const Keys& dtype_names();   // float64, float32, bfloat16, float16
const Keys& layout_names();  // interleaved, halves
std::string list(const Keys& keys);
bool among(std::string_view key, const Keys& keys);
[[noreturn]] void bad(const std::string& field, const std::string& what);

// params.<op>.shapes: each dimension the op's requests have, read into
// info.shapes (and info.declared), and written back; null when the subject
// declares no shapes for `op`.
void read_shapes(const json& object, Op op, SubjectInfo& info);
json shapes_json(const SubjectInfo& info, Op op);

// `object` (at `path`) with the aliases of the schema's definition `def` that
// name a nested field (head_dim: shapes.d) moved there; a value given under
// both names must agree.
json nested_aliases_resolved(json object, const std::string& path, std::string_view def);

// Whether the field at the dotted `path` was read from a declaration.
bool declared(const SubjectInfo& info, std::string_view path);

}  // namespace pecheck::process

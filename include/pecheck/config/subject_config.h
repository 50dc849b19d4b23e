#pragma once
// What pecheck.toml states about one subject ([subject."SPEC"] tables):
// its conventions, as a version-2 hello would declare them, and its own
// max_position. Example:
//
//   [subject."cmd:python3 my_rope.py"]
//   dtype = "bfloat16"
//   compute = { angles = "float32" }
//   params.rotate = { base = 500000, layout = "halves" }
//   max_position = 8192
//
// The file is read here (table structure, types of max_position); the
// declarations themselves are checked by the same rules, with the same
// errors, as a hello's when they are laid over the subject
// (pecheck/subjects/declare.h: with_declarations), at plan time.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "pecheck/core/json.h"

namespace pecheck {

struct SubjectDeclaration {
  json declared = json::object();        // dtype, layout, compute, params: a hello's fields
  std::optional<std::int64_t> max_position;  // this subject's largest position (the run's otherwise)
  std::string where;                     // "pecheck.toml:12", for messages
  // Where each declared field is written: its dotted path ("params.rotate.base") → "pecheck.toml:14",
  // so that an error found when the declarations are read names the file and line.
  std::map<std::string, std::string> lines;
};

}  // namespace pecheck

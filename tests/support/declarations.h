#pragma once
// What the declaration tests of model configs and dual chunk attention share
// (test_model_config_declarations, test_model_config_mla, test_dual_chunk):
// a file of the checkout, a config.json as declarations, and what
// with_declarations says of declarations it refuses.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/protocol/bad_declaration.h"
#include "pecheck/subjects/declare.h"

namespace pecheck::testing {

// A file of the checkout, by its path from the root (PECHECK_SOURCE_DIR, set by ctest).
inline std::string source_file(const std::string& path) {
  const char* root = std::getenv("PECHECK_SOURCE_DIR");
  if (root == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return std::string(root) + "/" + path;
}

// A model's config.json as the declarations that carry it (params.model).
inline json with_model(const json& config) { return {{"params", {{"model", config}}}}; }

// BadDeclaration's message for declarations with_declarations refuses, or
// "(accepted)" (which no expected cause contains).
inline std::string declarations_refusal(SubjectPtr subject, const json& declared) {
  try {
    with_declarations(std::move(subject), declared);
  } catch (const BadDeclaration& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace pecheck::testing

#pragma once
// `pecheck explain-config PATH [--json]`: what pecheck reads in a model's
// config.json — the model-wide facts and one row per layer
// (pecheck/protocol/model_config.h) — without running anything.
#include <string>

namespace pecheck::cli {

// 0 the config was read (printed), 2 it cannot be read (the field named).
int explain_config(const std::string& path, bool as_json);

}  // namespace pecheck::cli

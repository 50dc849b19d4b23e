#pragma once
// params.model: a model's config.json as a subject's declaration
// (SUBJECT-PROTOCOL.md "Model configs"). The reading (model_config.h) gives
// the params of every op the subject offers — params.rotate, params.attention,
// params.forward with one entry of params.forward.layers per layer — laid
// under what the subject (or pecheck.toml) declares explicitly: an explicit
// field wins where it agrees, and one that contradicts the config is a
// BadDeclaration (exit 2) showing both values.
#include "pecheck/core/json.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::model {

// Reads `config` and lays what it implies under `info`'s explicit
// declarations (info.declared names them). Throws BadDeclaration: a config
// that cannot be read, a field read but not judged yet, a contradiction, or
// a rotate op whose layer 0 has no rotary (a rotate request without "layer"
// is layer 0's rotation).
void apply_model_config(const json& config, SubjectInfo& info);

}  // namespace pecheck::model

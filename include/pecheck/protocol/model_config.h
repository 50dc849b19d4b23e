#pragma once
// A model's config.json read as its declaration (SUBJECT-PROTOCOL.md, turn of
// 2026-11-28, "Model configs"): pecheck's own reader, written from the
// published model code (transformers' configuration_<family>.py and
// modeling_<family>.py), derives the model-wide facts and one row per layer —
// attention kind, window or chunk, rotary base / scaling / width / layout or
// none (NoPE), temperature tuning, KV sharing — so that a module is judged
// against what its config says rather than against a hand-written copy of
// the same reading. Every top-level field is either read or listed as
// unread; a field read whose convention pecheck cannot judge yet is listed
// as not judged (a run refuses it, naming it). docs/model-configs.md lists
// the fields, their meaning and the code each follows.
#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/json.h"
#include "pecheck/protocol/bad_declaration.h"

namespace pecheck::model {

// A config.json that cannot be read: a field of the wrong type or out of
// range, a layer list of the wrong length. A usage error (exit 2), naming the
// field as `model.<field>`.
struct ModelConfigError : BadDeclaration {
  using BadDeclaration::BadDeclaration;
};

// A layer's attention: over every earlier key, over the last W keys, inside
// its chunk of C, or a linear (recurrent) layer without softmax attention.
enum class AttentionKind { full, sliding, chunked, linear };
std::string_view name(AttentionKind kind);  // "full", "sliding", "chunked", "linear"

// Llama 4's attention temperature on NoPE layers: TemperatureTuning
// (core/conventions.h).

struct LayerReading {
  int index = 0;
  AttentionKind attention = AttentionKind::full;
  std::optional<Position> window;           // sliding layers
  std::optional<Position> chunk;            // chunked layers
  std::optional<RotateConvention> rope;     // none: a NoPE layer (or a linear one)
  int rotary_dim = 0;                       // features that rotate (with rope)
  std::optional<TemperatureTuning> temperature_tuning;
  std::optional<int> kv_shared_with;        // the earlier layer whose keys and values it reuses
};

struct ModelReading {
  std::string model_type;        // as the config says ("" when it says none)
  bool known_family = false;     // whether the reader has the family's rules and defaults
  int heads = 0, kv_heads = 0, head_dim = 0, hidden_size = 0;
  std::optional<Position> max_position_embeddings;
  std::optional<double> softcap;  // attn_logit_softcapping
  std::optional<double> scale;    // the logit scale when the config sets one (query_pre_attn_scalar^−½)
  bool sinks = false;             // learned per-head sink logits (GPT-OSS)
  // DeepSeek MLA (qk_rope_head_dim set): head_dim is qk_nope + qk_rope, the last qk_rope features
  // rotate (each layer's rope is the decoupled rotary); values are v_head_dim wide.
  std::optional<int> qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
  // Qwen2.5-1M's dual_chunk_attention_config (chunk_size, local_size,
  // original_max_position_embeddings); its rotary is layer 0's, filled where
  // the params are derived (model_derive.cpp).
  std::optional<DualChunk> dual_chunk;
  std::vector<LayerReading> layers;
  std::vector<std::string> unread;      // fields not read, sorted ("text_config.vocab_size" inside a text config)
  std::vector<std::string> not_judged;  // fields read whose conventions pecheck cannot judge yet
  std::vector<std::string> defaulted;   // fields absent from the file, taken from the family's config class
  std::vector<std::string> notes;       // what the reading assumed
};

// Reads a config.json object (its text_config for a multimodal one). Throws
// ModelConfigError.
ModelReading read_model_config(const json& config);

// Reads the file at `path` (JSON). Throws ModelConfigError for a file that
// cannot be opened or parsed.
json load_model_config(const std::string& path);

// `pecheck explain-config --json`: {"model": {...}, "layers": [...], "unread": [...]}
// (SUBJECT-PROTOCOL.md, "Model configs").
json reading_json(const ModelReading& reading);
// The same in words: the model-wide facts, then one line per layer.
std::string reading_text(const ModelReading& reading);

}  // namespace pecheck::model

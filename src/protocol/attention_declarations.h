#pragma once
// The attention conventions (SUBJECT-PROTOCOL.md "Attention conventions"), which
// params.attention and params.forward both declare: transformers' config.json
// names are read as pecheck's (a key under both names must agree), and a null
// value is a field not declared (config.json's "sliding_window": null).
#include <string>

#include "pecheck/core/conventions.h"
#include "pecheck/core/json.h"
#include "protocol/declarations.h"
#include "protocol/fields.h"

namespace pecheck::process {

// heads, kv_heads, grouping, window, chunk, softcap, sinks, sink_logits, scale, alignment, fully_masked.
const Keys& attention_keys();

// `object` (at `path`) with every alias of the schema's definition `def`
// renamed to pecheck's name (and read as the schema says: Gemma's
// query_pre_attn_scalar as the scale 1/√v; head_dim as shapes.d) and the
// attention fields given as null left out.
json canonical_attention(const json& object, const std::string& path,
                         std::string_view def = "attention_conventions");

// Reads the attention fields of `f` (already canonical) into `c`.
void read_attention_fields(Fields& f, AttentionConvention& c);

// The attention fields of `c` that are declared, into `out`.
void attention_json(const AttentionConvention& c, json& out);

}  // namespace pecheck::process

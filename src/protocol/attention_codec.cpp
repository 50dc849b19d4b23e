// attention: softmax(q kᵀ/√d_k + mask) v (SUBJECT-PROTOCOL.md, "attention"
// and "Attention conventions"): one head's matrices, or, for a subject that
// declares heads, heads × rows × width tensors (H query heads, G key/value heads).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "protocol/codec.h"
#include "protocol/attention_declarations.h"
#include "protocol/fields.h"
#include "protocol/rotate_declarations.h"

namespace pecheck {

namespace attention_codec {

using process::Arrays;
using process::Buffer;

// q as H × n × d_h, k and v as G × m × d (G = k's width over d_h).
void put_heads(Buffer& out, const AttentionCall& c, Arrays arrays) {
  const int heads = std::max(1, c.heads);
  const Eigen::Index d_head = c.q.cols() / heads;
  const int groups = d_head > 0 && c.k.cols() % d_head == 0 ? static_cast<int>(c.k.cols() / d_head) : 1;
  process::put(out, "\"op\":\"attention\",\"q\":");
  process::put_tensor(out, columns_to_heads(c.q, heads), arrays);
  process::put(out, ",\"k\":");
  process::put_tensor(out, columns_to_heads(c.k, groups), arrays);
  process::put(out, ",\"v\":");
  process::put_tensor(out, columns_to_heads(c.v, groups), arrays);
  process::put(out, ",\"mask\":");
  process::put_mask(out, c.mask);
}

void put(Buffer& out, const AttentionCall& c, const WireOptions& wire) {
  if (wire.head_tensors) return put_heads(out, c, wire.arrays);
  process::put(out, "\"op\":\"attention\",\"q\":");
  process::put_matrix(out, c.q, wire.arrays);
  process::put(out, ",\"k\":");
  process::put_matrix(out, c.k, wire.arrays);
  process::put(out, ",\"v\":");
  process::put_matrix(out, c.v, wire.arrays);
  process::put(out, ",\"mask\":");
  process::put_mask(out, c.mask);
}

std::size_t size_hint(const AttentionCall& c, Arrays arrays) {
  const std::size_t per_number = codec::chars_per_number(arrays);
  auto numbers = [&](Eigen::Index n) { return per_number * static_cast<std::size_t>(n) + 64; };
  return numbers(c.q.size()) + numbers(c.k.size()) + numbers(c.v.size()) +
         6 * static_cast<std::size_t>(c.mask.allowed.size());
}

ExpectedAnswer expected(const AttentionCall& c, bool head_tensors) {
  using K = ExpectedAnswer::Kind;
  if (!head_tensors) return {AttentionCall::kName, K::matrix, c.q.rows(), c.v.cols()};
  // H query heads, each answering n rows of d_v = v's width over the G kv heads.
  const int heads = std::max(1, c.heads);
  const Eigen::Index d_head = c.q.cols() / heads;
  const Eigen::Index groups = d_head > 0 ? std::max<Eigen::Index>(1, c.k.cols() / d_head) : 1;
  return {AttentionCall::kName, K::heads, c.q.rows(), heads * (c.v.cols() / groups), heads};
}

// The heads asked must be the heads declared, and q, k, v must split into them.
void check(const AttentionCall& c, const SubjectInfo& subject, bool head_tensors) {
  const int declared = subject.attention.query_heads();
  if (c.heads != declared) {
    throw Refusal(fmt::format("{} declares {} head{}; asked for {}", subject.name, declared, declared == 1 ? "" : "s",
                              c.heads));
  }
  if (head_tensors) {
    const Eigen::Index d_head = c.q.cols() / std::max(1, c.heads);
    if (d_head < 1 || c.q.cols() % c.heads != 0 || c.k.cols() != subject.attention.key_heads() * d_head ||
        c.v.cols() % subject.attention.key_heads() != 0) {
      throw Refusal(fmt::format("{} takes {} query and {} key/value heads: q {}×{}, k {}×{}, v {}×{} do not "
                                "split so", subject.name, declared, subject.attention.key_heads(), c.q.rows(),
                                c.q.cols(), c.k.rows(), c.k.cols(), c.v.rows(), c.v.cols()));
    }
  }
}

Call read(const json& r) {
  const AttentionMask mask = codec::mask_from_wire(r.contains("mask") ? r["mask"] : json());
  if (codec::head_tensors(r.at("q"))) {
    // Multi-head: q H×n×d, k and v G×m×d (SUBJECT-PROTOCOL.md "Attention conventions").
    const Batch q = process::tensor_value(r.at("q"), Arrays::b64le), k = process::tensor_value(r.at("k"), Arrays::b64le),
                v = process::tensor_value(r.at("v"), Arrays::b64le);
    if (q.empty() || k.empty() || v.empty() || k.size() != v.size()) {
      throw Malformed("q, k and v must be H×n×d, G×m×d and G×m×d_v with H, G ≥ 1");
    }
    return AttentionCall{heads_to_columns(q), heads_to_columns(k), heads_to_columns(v), mask,
                         static_cast<int>(q.size())};
  }
  return AttentionCall{process::matrix_value(r.at("q"), Arrays::b64le), process::matrix_value(r.at("k"), Arrays::b64le),
                       process::matrix_value(r.at("v"), Arrays::b64le), mask};
}

json to_json(const AttentionCall& c) {
  json mask = c.mask.kind == AttentionMask::Kind::causal ? json("causal")
              : c.mask.kind == AttentionMask::Kind::none ? json("none")
                                                          : bool_matrix_to_json(c.mask.allowed);
  json j = {{"op", AttentionCall::kName}, {"q", c.q}, {"k", c.k}, {"v", c.v}, {"mask", mask}};
  if (c.heads != 1) j["heads"] = c.heads;
  return j;
}

Call from_json(const json& r) {
  AttentionCall c{codec::matrix(r, "q"), codec::matrix(r, "k"), codec::matrix(r, "v"), AttentionMask::none()};
  const json& mask = codec::field(r, "mask");
  if (mask == "causal") c.mask = AttentionMask::causal();
  else if (mask.is_array()) c.mask = AttentionMask::boolean(bool_matrix_from_json(mask));
  else if (mask != "none") throw std::invalid_argument("\"mask\" is \"none\", \"causal\" or a boolean matrix");
  if (r.contains("heads")) c.heads = codec::integer(r, "heads");
  return c;
}

std::string describe(const AttentionCall& c) {
  return fmt::format("attention of {} queries, {} keys", c.q.rows(), c.k.rows());
}

CallReach reach(const AttentionCall& c, std::int64_t) {
  const int h = std::max(c.heads, 1);
  return {AttentionCall::kOp, std::nullopt,
          codec::sizes({{Axis::width, c.q.cols() / h}, {Axis::queries, c.q.rows()}, {Axis::keys, c.k.rows()},
                        {Axis::heads, h}}),
          std::nullopt};
}

// params.attention.dual_chunk (core/conventions.h DualChunk): the chunk sizes
// of a config's dual_chunk_attention_config and the rotary the attention
// applies itself. Window and chunk masks beside it are refused, as vLLM's
// dual chunk backend refuses a window.
DualChunk read_dual_chunk(const json& object, const AttentionConvention& attention, std::vector<std::string>& declared) {
  const std::string path = "params.attention.dual_chunk";
  process::Fields f(object, path, declared,
                    process::Keys{"chunk_size", "local_size", "original_max_position_embeddings", "rotate"});
  DualChunk dc;
  const auto chunk = f.integer("chunk_size", 2);
  const auto local = f.integer("local_size", 0);
  if (!chunk || !local) process::bad(path, path + " needs chunk_size and local_size (dual_chunk_attention_config's)");
  if (*local >= *chunk) {
    process::bad(f.at("local_size"), fmt::format("{} ({}) must be below chunk_size ({}): the chunk length is "
                                                 "chunk_size − local_size", f.at("local_size"), *local, *chunk));
  }
  dc.chunk_size = *chunk;
  dc.local_size = *local;
  dc.original_max_position_embeddings = f.integer("original_max_position_embeddings", 1);
  const json* rotate = f.object("rotate");
  if (!rotate) {
    process::bad(f.at("rotate"), f.at("rotate") + " is missing: the rotary the attention applies to its unrotated "
                                 "queries and keys (base, layout, rotary_dim)");
  }
  dc.rotate = process::read_rotate_convention(*rotate, f.at("rotate"), declared);
  if (dc.rotate.layout != Layout::halves && dc.rotate.layout != Layout::interleaved) {
    process::bad(f.at("rotate") + ".layout", "dual chunk attention's rotary needs its layout declared: halves "
                                             "(is_neox_style, Qwen2) or interleaved");
  }
  if (dc.rotate.scaling.type != ScalingType::none || dc.rotate.multi_axis() || dc.rotate.decoupled() ||
      dc.rotate.rope_2d || !dc.rotate.freq_factors.empty()) {
    process::bad(f.at("rotate"), "dual chunk attention's rotary is base and rotary_dim only "
                                 "(DualChunkRotaryEmbedding): no scaling, sections or factors");
  }
  if (attention.window || attention.chunk) {
    process::bad(path, "dual chunk attention with a window or chunk mask: vLLM's dual chunk backend refuses a "
                       "window, and pecheck has no reference of both");
  }
  return dc;
}

// params.attention: the attention conventions (attention_declarations.h) and shapes.
void read_params(const json& object, SubjectInfo& info) {
  const json canonical = process::canonical_attention(object, "params.attention", "params.attention");
  process::Fields f(canonical, "params.attention", info.declared, "params.attention", false);
  if (const json* v = f.object("shapes")) process::read_shapes(*v, AttentionCall::kOp, info);
  process::read_attention_fields(f, info.attention);
  if (auto v = f.boolean("poison_invariance")) info.attention.poison_invariance = *v;
  if (const json* v = f.object("dual_chunk")) info.attention.dual_chunk = read_dual_chunk(*v, info.attention, info.declared);
  // Declared head counts without the heads they count (issue 39): a subject
  // that does not declare params.attention.heads is judged one head at a time.
  if (info.shapes.find(AttentionCall::kOp, ShapeDim::heads) && !info.attention.heads) {
    process::bad("params.attention.shapes.heads",
                 "params.attention.shapes.heads is declared without params.attention.heads: declare the heads "
                 "(and kv_heads) the subject has, or leave shapes.heads out");
  }
}

json write_params(const SubjectInfo& info) {
  json attention = json::object();
  if (info.attention.any()) process::attention_json(info.attention, attention);
  if (info.attention.poison_invariance) attention["poison_invariance"] = true;
  if (json s = process::shapes_json(info, AttentionCall::kOp); !s.is_null()) attention["shapes"] = std::move(s);
  return attention;
}

}  // namespace attention_codec

const Codec<AttentionCall>& AttentionCall::codec() {
  static const Codec<AttentionCall> codec{
      .put = &attention_codec::put,
      .size_hint = &attention_codec::size_hint,
      .expected = &attention_codec::expected,
      .check = &attention_codec::check,
      .read = &attention_codec::read,
      .to_json = &attention_codec::to_json,
      .from_json = &attention_codec::from_json,
      .describe = &attention_codec::describe,
      .reach = &attention_codec::reach,
      .params = {.read = &attention_codec::read_params, .write = &attention_codec::write_params}};
  return codec;
}

}  // namespace pecheck

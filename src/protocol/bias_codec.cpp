// bias: one head's additive attention bias, n × m (SUBJECT-PROTOCOL.md, "bias").
#include <fmt/format.h>

#include <iterator>

#include "protocol/codec.h"
#include "protocol/fields.h"

namespace pecheck {

namespace bias_codec {

using process::Arrays;
using process::Buffer;

void put(Buffer& out, const BiasCall& c, const WireOptions&) {
  fmt::format_to(std::back_inserter(out), "\"op\":\"bias\",\"n\":{},\"m\":{},\"head\":{}", c.n, c.m, c.head);
}

std::size_t size_hint(const BiasCall&, Arrays) { return 0; }

ExpectedAnswer expected(const BiasCall& c, bool) { return {BiasCall::kName, ExpectedAnswer::Kind::matrix, c.n, c.m}; }

// A head outside the subject's declared heads is refused unasked.
void check(const BiasCall& c, const SubjectInfo& subject, bool) {
  if (c.n < 0 || c.m < 0) throw Refusal(fmt::format("bias needs n, m ≥ 0, got {}×{}", c.n, c.m));
  if (c.head < 0 || (subject.bias && c.head >= subject.bias->heads)) {
    throw Refusal(fmt::format("head {} is not one of the subject's {} heads (0-based)", c.head,
                              subject.bias ? subject.bias->heads : 1));
  }
}

Call read(const json& r) { return BiasCall{r.at("n").get<int>(), r.at("m").get<int>(), r.at("head").get<int>()}; }

json to_json(const BiasCall& c) { return {{"op", BiasCall::kName}, {"n", c.n}, {"m", c.m}, {"head", c.head}}; }

Call from_json(const json& r) {
  return BiasCall{codec::integer(r, "n"), codec::integer(r, "m"), codec::integer(r, "head")};
}

std::string describe(const BiasCall& c) { return fmt::format("bias {}×{} of head {}", c.n, c.m, c.head); }

CallReach reach(const BiasCall& c, std::int64_t) {
  return {BiasCall::kOp, std::nullopt, codec::sizes({{Axis::queries, c.n}, {Axis::keys, c.m}, {Axis::heads, c.head + 1}}),
          std::nullopt};
}

// params.bias: which bias (ALiBi or T5's buckets), its heads and how its
// queries align with its keys.
void read_params(const json& object, SubjectInfo& info) {
  using process::bad;
  process::Fields f(object, "params.bias", info.declared, "params.bias", true);
  if (const json* v = f.object("shapes")) process::read_shapes(*v, BiasCall::kOp, info);
  for (auto key : {"scheme", "heads"}) {
    if (!f.has({key})) bad(f.at(key), fmt::format("{} is missing (params.bias needs scheme and heads)", f.at(key)));
  }
  BiasConvention bias;
  bias.scheme = *f.choice({"scheme"}, parse_bias_scheme);
  bias.heads = static_cast<int>(*f.integer({"heads"}));
  if (bias.scheme == BiasScheme::alibi) {
    for (auto key : {"num_buckets", "max_distance", "bidirectional"}) {
      if (f.has({key})) bad(f.at(key), fmt::format("params.bias.{} is a field of scheme t5, not alibi", key));
    }
  }
  if (auto v = f.choice({"alignment"}, parse_alignment)) bias.alignment = *v;
  if (auto v = f.boolean({"bidirectional"})) bias.bidirectional = *v;
  if (auto v = f.integer({"num_buckets"})) bias.num_buckets = static_cast<int>(*v);
  if (auto v = f.integer({"max_distance"})) bias.max_distance = static_cast<int>(*v);
  if (bias.scheme == BiasScheme::t5) {
    // Exact buckets below max_exact, logarithmic from there to max_distance.
    const int max_exact = (bias.bidirectional ? bias.num_buckets / 2 : bias.num_buckets) / 2;
    if (max_exact < 1 || bias.max_distance <= max_exact) {
      bad("params.bias.max_distance",
          fmt::format("params.bias.max_distance ({}) must exceed the exact buckets' reach ({}: num_buckets {}{})",
                      bias.max_distance, max_exact, bias.num_buckets, bias.bidirectional ? ", bidirectional" : ""));
    }
  }
  info.bias = bias;
}

json write_params(const SubjectInfo& info) {
  if (!info.bias) return nullptr;
  const BiasConvention& b = *info.bias;
  json bias = {{"scheme", std::string(name(b.scheme))}, {"heads", b.heads}};
  if (b.scheme == BiasScheme::t5) {
    bias["num_buckets"] = b.num_buckets;
    bias["max_distance"] = b.max_distance;
    bias["bidirectional"] = b.bidirectional;
  }
  if (b.alignment != Alignment::top_left) bias["alignment"] = std::string(name(b.alignment));
  if (json s = process::shapes_json(info, BiasCall::kOp); !s.is_null()) bias["shapes"] = std::move(s);
  return bias;
}

}  // namespace bias_codec

const Codec<BiasCall>& BiasCall::codec() {
  static const Codec<BiasCall> codec{
      .put = &bias_codec::put,
      .size_hint = &bias_codec::size_hint,
      .expected = &bias_codec::expected,
      .check = &bias_codec::check,
      .read = &bias_codec::read,
      .to_json = &bias_codec::to_json,
      .from_json = &bias_codec::from_json,
      .describe = &bias_codec::describe,
      .reach = &bias_codec::reach,
      .params = {.read = &bias_codec::read_params, .write = &bias_codec::write_params}};
  return codec;
}

}  // namespace pecheck

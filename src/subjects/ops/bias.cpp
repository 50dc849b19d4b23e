// bias: one head's additive attention bias, n × m (SUBJECT-PROTOCOL.md, "bias").
#include <fmt/format.h>

#include <iterator>

#include "subjects/ops/codec.h"

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
      .reach = &bias_codec::reach};
  return codec;
}

}  // namespace pecheck

// logits and combine: in-process ops of the built-ins, which the subject
// protocol does not carry (a process subject refuses them unasked; serve
// does not read them; no history script holds them).
#include <fmt/format.h>

#include <stdexcept>

#include "protocol/codec.h"

namespace pecheck {

namespace in_process_codec {

using process::Arrays;
using process::Buffer;

template <class C>
void put(Buffer&, const C&, const WireOptions&) {
  throw std::logic_error(fmt::format("{} is not an op of the subject protocol", C::kName));
}

template <class C>
std::size_t size_hint(const C&, Arrays) {
  return 0;
}

template <class C>
void check(const C&, const SubjectInfo&, bool) {}

template <class C>
Call read(const json&) {
  throw Refusal(fmt::format("unknown op '{}'", C::kName));
}

template <class C>
Call from_json(const json&) {
  throw std::invalid_argument(fmt::format("\"{}\" is not an op a history script can hold", C::kName));
}

// The pre-softmax scores q kᵀ/√d_k (masked entries are -inf).
ExpectedAnswer logits_expected(const LogitsCall& c, bool) {
  return {LogitsCall::kName, ExpectedAnswer::Kind::matrix, c.q.rows(), c.k.rows()};
}
json logits_json(const LogitsCall& c) { return {{"op", LogitsCall::kName}, {"q", c.q}, {"k", c.k}}; }
std::string logits_words(const LogitsCall& c) {
  return fmt::format("logits of {} queries over {} keys", c.q.rows(), c.k.rows());
}
CallReach logits_reach(const LogitsCall& c, std::int64_t) {
  return {LogitsCall::kOp, std::nullopt,
          codec::sizes({{Axis::width, c.q.cols()}, {Axis::queries, c.q.rows()}, {Axis::keys, c.k.rows()}}),
          std::nullopt};
}

// a + b, [a | b], or the row-wise projection b_r ↦ a b_r.
ExpectedAnswer combine_expected(const CombineCall& c, bool) {
  return {CombineCall::kName, ExpectedAnswer::Kind::matrix, c.b.rows(), c.a.cols()};
}
json combine_json(const CombineCall& c) { return {{"op", CombineCall::kName}, {"a", c.a}, {"b", c.b}}; }
std::string combine_words(const CombineCall& c) { return fmt::format("combine of {} rows", c.a.rows()); }
CallReach combine_reach(const CombineCall& c, std::int64_t) {
  using How = CombineCall::How;
  const std::int64_t width = c.how == How::concat ? c.a.cols() + c.b.cols() : c.how == How::project ? c.b.cols() : c.a.cols();
  const std::int64_t rows = c.how == How::project ? c.b.rows() : c.a.rows();
  return {CombineCall::kOp, std::nullopt, codec::sizes({{Axis::width, width}, {Axis::rows, rows}}), std::nullopt};
}

}  // namespace in_process_codec

const Codec<LogitsCall>& LogitsCall::codec() {
  static const Codec<LogitsCall> codec{
      .put = &in_process_codec::put<LogitsCall>,
      .size_hint = &in_process_codec::size_hint<LogitsCall>,
      .expected = &in_process_codec::logits_expected,
      .check = &in_process_codec::check<LogitsCall>,
      .read = &in_process_codec::read<LogitsCall>,
      .to_json = &in_process_codec::logits_json,
      .from_json = &in_process_codec::from_json<LogitsCall>,
      .describe = &in_process_codec::logits_words,
      .reach = &in_process_codec::logits_reach};
  return codec;
}

const Codec<CombineCall>& CombineCall::codec() {
  static const Codec<CombineCall> codec{
      .put = &in_process_codec::put<CombineCall>,
      .size_hint = &in_process_codec::size_hint<CombineCall>,
      .expected = &in_process_codec::combine_expected,
      .check = &in_process_codec::check<CombineCall>,
      .read = &in_process_codec::read<CombineCall>,
      .to_json = &in_process_codec::combine_json,
      .from_json = &in_process_codec::from_json<CombineCall>,
      .describe = &in_process_codec::combine_words,
      .reach = &in_process_codec::combine_reach};
  return codec;
}

}  // namespace pecheck

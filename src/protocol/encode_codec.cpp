// encode: a positional encoding's rows at given positions (SUBJECT-PROTOCOL.md, "encode").
#include <fmt/format.h>

#include <iterator>

#include "protocol/codec.h"
#include "protocol/fields.h"

namespace pecheck {

namespace encode_codec {

using process::Arrays;
using process::Buffer;

void put(Buffer& out, const EncodeCall& c, const WireOptions&) {
  fmt::format_to(std::back_inserter(out), "\"op\":\"encode\",\"dim\":{},\"positions\":", c.dim);
  process::put_positions(out, c.positions);
  fmt::format_to(std::back_inserter(out), ",\"seq_len\":{}", c.seq_len);
}

std::size_t size_hint(const EncodeCall& c, Arrays) { return 21 * c.positions.size(); }

ExpectedAnswer expected(const EncodeCall& c, bool) {
  return {EncodeCall::kName, ExpectedAnswer::Kind::matrix, static_cast<Eigen::Index>(c.positions.size()), c.dim};
}

void check(const EncodeCall& c, const SubjectInfo&, bool) {
  if (c.dim < 0) throw Refusal(fmt::format("dim must not be negative, got {}", c.dim));
}

Call read(const json& r) {
  return EncodeCall{r.at("dim").get<int>(), r.at("positions").get<Positions>(), r.at("seq_len").get<Position>()};
}

json to_json(const EncodeCall& c) {
  return {{"op", EncodeCall::kName}, {"dim", c.dim}, {"positions", c.positions}, {"seq_len", c.seq_len}};
}

Call from_json(const json& r) {
  return EncodeCall{codec::integer(r, "dim"), codec::positions(codec::field(r, "positions"), "positions"),
                    codec::position(r, "seq_len")};
}

std::string describe(const EncodeCall& c) {
  return fmt::format("encode d={} at positions {} (seq_len {})", c.dim, codec::brief_list(c.positions), c.seq_len);
}

CallReach reach(const EncodeCall& c, std::int64_t) {
  return {EncodeCall::kOp, codec::largest(c.positions),
          codec::sizes({{Axis::width, c.dim}, {Axis::rows, static_cast<std::int64_t>(c.positions.size())}}),
          c.seq_len};
}

// params.encode: the sinusoidal table's convention.
void read_params(const json& object, SubjectInfo& info) {
  process::Fields f(object, "params.encode", info.declared, "params.encode", true);
  if (const json* v = f.object("shapes")) process::read_shapes(*v, EncodeCall::kOp, info);
  if (auto v = f.number({"base"})) info.encode.base = *v;
  if (auto v = f.choice({"schedule"}, parse_schedule)) info.encode.schedule = *v;
  if (auto v = f.integer({"position_offset"})) info.encode.position_offset = *v;
  if (auto v = f.number({"amplitude"})) info.encode.amplitude = info.amplitude = *v;
  if (auto v = f.choice({"layout"}, parse_layout)) info.encode.layout = *v;
}

json write_params(const SubjectInfo& info) {
  using process::declared;
  json encode = json::object();
  const EncodeConvention& e = info.encode;
  if (declared(info, "params.encode.base")) encode["base"] = e.base;
  if (declared(info, "params.encode.schedule")) encode["schedule"] = std::string(name(e.schedule));
  if (declared(info, "params.encode.position_offset")) encode["position_offset"] = e.position_offset;
  if (declared(info, "params.encode.amplitude")) encode["amplitude"] = e.amplitude;
  else if (info.amplitude != 1) encode["amplitude"] = info.amplitude;
  if (e.layout != Layout::unspecified) encode["layout"] = std::string(name(e.layout));
  if (json s = process::shapes_json(info, EncodeCall::kOp); !s.is_null()) encode["shapes"] = std::move(s);
  return encode;
}

}  // namespace encode_codec

const Codec<EncodeCall>& EncodeCall::codec() {
  static const Codec<EncodeCall> codec{
      .put = &encode_codec::put,
      .size_hint = &encode_codec::size_hint,
      .expected = &encode_codec::expected,
      .check = &encode_codec::check,
      .read = &encode_codec::read,
      .to_json = &encode_codec::to_json,
      .from_json = &encode_codec::from_json,
      .describe = &encode_codec::describe,
      .reach = &encode_codec::reach,
      .params = {.read = &encode_codec::read_params, .write = &encode_codec::write_params}};
  return codec;
}

}  // namespace pecheck

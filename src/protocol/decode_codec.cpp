// decode and reset: incremental decoding in a named session
// (SUBJECT-PROTOCOL.md, "decode"): one token at a position (DecodeCall), k
// tokens at k positions (DecodeTokensCall, declared multi_token_decode), and
// reset, which forgets a session (with a cache capacity, declared cache_capacity).
#include <fmt/format.h>

#include <iterator>

#include "protocol/codec.h"
#include "protocol/fields.h"

namespace pecheck {

namespace decode_codec {

using process::Arrays;
using process::Buffer;

void put_session(Buffer& out, std::string_view op, const std::string& session) {
  fmt::format_to(std::back_inserter(out), "\"op\":\"{}\",\"session\":", op);
  process::put_string(out, session);
}

// One token.
void put_one(Buffer& out, const DecodeCall& c, const WireOptions& wire) {
  put_session(out, DecodeCall::kName, c.session);
  process::put(out, ",\"x\":");
  process::put_vector(out, c.x, wire.arrays);
  fmt::format_to(std::back_inserter(out), ",\"position\":{}", c.position);
}
std::size_t hint_one(const DecodeCall&, Arrays) { return 0; }
ExpectedAnswer expected_one(const DecodeCall&, bool) { return {DecodeCall::kName, ExpectedAnswer::Kind::vector}; }
void check_one(const DecodeCall&, const SubjectInfo&, bool) {}

// Both of decode's forms: k tokens where the request has positions.
Call read_decode(const json& r) {
  if (r.contains("positions")) {
    return DecodeTokensCall{r.at("session").get<std::string>(), process::matrix_value(r.at("x"), Arrays::b64le),
                            r.at("positions").get<Positions>()};
  }
  return DecodeCall{r.at("session").get<std::string>(), process::result_vector(r.at("x"), Arrays::b64le),
                    r.at("position").get<Position>()};
}
Call decode_from_json(const json& r) {
  if (r.contains("positions")) {
    return DecodeTokensCall{codec::session(r), codec::matrix(r, "x"),
                            codec::positions(codec::field(r, "positions"), "positions")};
  }
  const Matrix x = codec::matrix(json{{"x", json::array({codec::field(r, "x")})}}, "x");
  return DecodeCall{codec::session(r), x.row(0).transpose(), codec::position(r, "position")};
}
json json_one(const DecodeCall& c) {
  return {{"op", DecodeCall::kName},
          {"session", c.session},
          {"x", std::vector<double>(c.x.data(), c.x.data() + c.x.size())},
          {"position", c.position}};
}
std::string words_one(const DecodeCall& c) {
  return fmt::format("decode in session \"{}\" at position {}", c.session, c.position);
}
CallReach reach_one(const DecodeCall& c, std::int64_t decoded) {
  return {DecodeCall::kOp, c.position, codec::sizes({{Axis::width, c.x.size()}, {Axis::tokens, decoded + 1}}),
          std::nullopt};
}

// k tokens.
void put_tokens(Buffer& out, const DecodeTokensCall& c, const WireOptions& wire) {
  put_session(out, DecodeTokensCall::kName, c.session);
  process::put(out, ",\"x\":");
  process::put_matrix(out, c.x, wire.arrays);
  process::put(out, ",\"positions\":");
  process::put_positions(out, c.positions);
}
std::size_t hint_tokens(const DecodeTokensCall& c, Arrays arrays) {
  const std::size_t per_number = codec::chars_per_number(arrays);
  return 21 * c.positions.size() + per_number * static_cast<std::size_t>(c.x.size()) + 64;
}
ExpectedAnswer expected_tokens(const DecodeTokensCall& c, bool) {
  return {DecodeTokensCall::kName, ExpectedAnswer::Kind::rows, c.x.rows(), 0};
}
void check_tokens(const DecodeTokensCall& c, const SubjectInfo& subject, bool) {
  if (!(subject.forward && subject.forward->multi_token_decode)) {
    throw Refusal(fmt::format("{} does not declare params.forward.multi_token_decode", subject.name));
  }
  if (static_cast<Eigen::Index>(c.positions.size()) != c.x.rows() || c.x.rows() < 1) {
    throw std::invalid_argument(fmt::format("decode: {} positions for {} tokens", c.positions.size(), c.x.rows()));
  }
}
json json_tokens(const DecodeTokensCall& c) {
  return {{"op", DecodeTokensCall::kName}, {"session", c.session}, {"x", c.x}, {"positions", c.positions}};
}
std::string words_tokens(const DecodeTokensCall& c) {
  return fmt::format("decode {} tokens in session \"{}\" at positions {}", c.x.rows(), c.session,
                     codec::brief_list(c.positions));
}
CallReach reach_tokens(const DecodeTokensCall& c, std::int64_t decoded) {
  return {DecodeTokensCall::kOp, codec::largest(c.positions),
          codec::sizes({{Axis::width, c.x.cols()}, {Axis::tokens, decoded + c.x.rows()}}), std::nullopt};
}

// reset.
void put_reset(Buffer& out, const ResetCall& c, const WireOptions&) {
  put_session(out, ResetCall::kName, c.session);
  if (c.capacity) fmt::format_to(std::back_inserter(out), ",\"capacity\":{}", *c.capacity);
}
std::size_t hint_reset(const ResetCall&, Arrays) { return 0; }
ExpectedAnswer expected_reset(const ResetCall&, bool) { return {ResetCall::kName, ExpectedAnswer::Kind::null}; }
void check_reset(const ResetCall& c, const SubjectInfo& subject, bool) {
  if (c.capacity && !(subject.forward && subject.forward->cache_capacity)) {
    throw Refusal(fmt::format("{} does not declare params.forward.cache_capacity", subject.name));
  }
}
Call read_reset(const json& r) {
  ResetCall c{r.at("session").get<std::string>(), std::nullopt};
  if (r.contains("capacity")) c.capacity = r["capacity"].get<Position>();
  return c;
}
Call reset_from_json(const json& r) {
  ResetCall c{codec::session(r), std::nullopt};
  if (r.contains("capacity")) c.capacity = codec::position(r, "capacity");
  return c;
}
json json_reset(const ResetCall& c) {
  json j = {{"op", ResetCall::kName}, {"session", c.session}};
  if (c.capacity) j["capacity"] = *c.capacity;
  return j;
}
std::string words_reset(const ResetCall& c) {
  return fmt::format("reset session \"{}\"{}", c.session,
                     c.capacity ? fmt::format(" with capacity {}", *c.capacity) : std::string());
}
CallReach reach_reset(const ResetCall&, std::int64_t) { return {ResetCall::kOp, std::nullopt, AxisSizes{}, std::nullopt}; }

// params.decode: its shapes only (its conventions are params.forward's).
void read_params(const json& object, SubjectInfo& info) {
  process::Fields f(object, "params.decode", info.declared, "params.decode", true);
  if (const json* v = f.object("shapes")) process::read_shapes(*v, DecodeCall::kOp, info);
}

json write_params(const SubjectInfo& info) {
  json s = process::shapes_json(info, DecodeCall::kOp);
  return s.is_null() ? s : json{{"shapes", std::move(s)}};
}

}  // namespace decode_codec

const Codec<DecodeCall>& DecodeCall::codec() {
  static const Codec<DecodeCall> codec{
      .put = &decode_codec::put_one,
      .size_hint = &decode_codec::hint_one,
      .expected = &decode_codec::expected_one,
      .check = &decode_codec::check_one,
      .read = &decode_codec::read_decode,
      .to_json = &decode_codec::json_one,
      .from_json = &decode_codec::decode_from_json,
      .describe = &decode_codec::words_one,
      .reach = &decode_codec::reach_one,
      .params = {.read = &decode_codec::read_params, .write = &decode_codec::write_params}};
  return codec;
}

const Codec<DecodeTokensCall>& DecodeTokensCall::codec() {
  static const Codec<DecodeTokensCall> codec{
      .put = &decode_codec::put_tokens,
      .size_hint = &decode_codec::hint_tokens,
      .expected = &decode_codec::expected_tokens,
      .check = &decode_codec::check_tokens,
      .read = &decode_codec::read_decode,
      .to_json = &decode_codec::json_tokens,
      .from_json = &decode_codec::decode_from_json,
      .describe = &decode_codec::words_tokens,
      .reach = &decode_codec::reach_tokens};
  return codec;
}

const Codec<ResetCall>& ResetCall::codec() {
  static const Codec<ResetCall> codec{
      .put = &decode_codec::put_reset,
      .size_hint = &decode_codec::hint_reset,
      .expected = &decode_codec::expected_reset,
      .check = &decode_codec::check_reset,
      .read = &decode_codec::read_reset,
      .to_json = &decode_codec::json_reset,
      .from_json = &decode_codec::reset_from_json,
      .describe = &decode_codec::words_reset,
      .reach = &decode_codec::reach_reset};
  return codec;
}

}  // namespace pecheck

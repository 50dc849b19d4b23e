// rotate: a rotary embedding applied to x's rows at given positions
// (SUBJECT-PROTOCOL.md, "rotate"): one position per row, or one list per
// axis (3 × n, multi-axis positions); seq_len and a module layer when given.
#include <fmt/format.h>

#include <iterator>

#include "protocol/codec.h"
#include "protocol/declarations.h"
#include "protocol/rotate_declarations.h"

namespace pecheck {

namespace rotate_codec {

using process::Arrays;
using process::Buffer;

void put(Buffer& out, const RotateCall& c, const WireOptions& wire) {
  process::put(out, "\"op\":\"rotate\",\"positions\":");
  if (c.axes.empty()) {
    process::put_positions(out, c.positions);
  } else {
    out.push_back('[');
    for (std::size_t a = 0; a < c.axes.size(); ++a) {
      if (a) out.push_back(',');
      process::put_positions(out, c.axes[a]);
    }
    out.push_back(']');
  }
  process::put(out, ",\"x\":");
  process::put_matrix(out, c.x, wire.arrays);
  if (c.seq_len) fmt::format_to(std::back_inserter(out), ",\"seq_len\":{}", *c.seq_len);
  if (c.layer) fmt::format_to(std::back_inserter(out), ",\"layer\":{}", *c.layer);
  if (c.shift) fmt::format_to(std::back_inserter(out), ",\"shift\":{}", *c.shift);
}

std::size_t size_hint(const RotateCall& c, Arrays arrays) {
  const std::size_t per_number = codec::chars_per_number(arrays);
  std::size_t n = 21 * c.positions.size() + per_number * static_cast<std::size_t>(c.x.size()) + 64;
  for (const Positions& p : c.axes) n += 21 * p.size();
  return n;
}

ExpectedAnswer expected(const RotateCall& c, bool) {
  return {RotateCall::kName, ExpectedAnswer::Kind::matrix, c.x.rows(), c.x.cols()};
}

void check(const RotateCall& c, const SubjectInfo& subject, bool) {
  if (c.layer) codec::check_layer(subject, *c.layer);
  if (c.shift && !subject.context_shift) {
    throw Refusal(fmt::format("{} does not declare context_shift: a rotate request carries no shift", subject.name));
  }
  if (c.shift && !c.axes.empty()) throw Refusal("a context shift takes one position per row");
  const int declared_axes = subject.rotate.position_axes();
  const std::size_t axes = declared_axes > 1 ? static_cast<std::size_t>(declared_axes) : 0;
  // One-axis positions go out on every axis (ProcessSubject); more axes than declared cannot.
  if (!c.axes.empty() && c.axes.size() != axes && !c.layer) {
    throw Refusal(fmt::format("{} declares {} position axes; the request has {}", subject.name, axes == 0 ? 1 : axes,
                              c.axes.size()));
  }
}

Call read(const json& r) {
  const json& positions = r.at("positions");
  RotateCall c{{}, process::matrix_value(r.at("x"), Arrays::b64le), std::nullopt};
  // 3 × n for multi-axis positions (2 × n for a 2-D rotary), else n.
  if (!positions.empty() && positions.front().is_array()) {
    c.axes = positions.get<std::vector<Positions>>();
  } else {
    c.positions = positions.get<Positions>();
  }
  if (r.contains("seq_len")) c.seq_len = r["seq_len"].get<Position>();
  if (r.contains("layer")) c.layer = r["layer"].get<int>();
  if (r.contains("shift")) c.shift = r["shift"].get<Position>();
  if (c.layer && !c.axes.empty()) throw Malformed("a layer's rotation takes one position per row");
  if (c.shift && !c.axes.empty()) throw Malformed("a context shift takes one position per row");
  return c;
}

json to_json(const RotateCall& c) {
  // Multi-axis positions as the protocol sends them: one list per axis.
  json j = {{"op", RotateCall::kName}, {"positions", c.axes.empty() ? json(c.positions) : json(c.axes)}, {"x", c.x}};
  if (c.seq_len) j["seq_len"] = *c.seq_len;
  if (c.layer) j["layer"] = *c.layer;
  if (c.shift) j["shift"] = *c.shift;
  return j;
}

Call from_json(const json& r) {
  const json& at = codec::field(r, "positions");
  RotateCall c{{}, codec::matrix(r, "x"), std::nullopt};
  if (at.is_array() && !at.empty() && at.front().is_array()) {
    if (at.size() > 3) throw std::invalid_argument("\"positions\": at most 3 axes");
    for (const auto& axis : at) c.axes.push_back(codec::positions(axis, "positions"));
  } else {
    c.positions = codec::positions(at, "positions");
  }
  if (r.contains("seq_len")) c.seq_len = codec::position(r, "seq_len");
  if (r.contains("layer")) c.layer = codec::integer(r, "layer");
  if (r.contains("shift")) {
    const json& v = r.at("shift");
    if (!v.is_number_integer()) throw std::invalid_argument("\"shift\" must be an integer (Δ, any sign)");
    c.shift = v.get<Position>();
  }
  return c;
}

std::string describe(const RotateCall& c) {
  std::string at = codec::brief_list(c.positions);
  if (!c.axes.empty()) {
    at.clear();
    const char* names[] = {"t", "h", "w"};
    for (std::size_t a = 0; a < c.axes.size() && a < 3; ++a) {
      at += fmt::format("{}{} [{}]", a ? ", " : "", names[a], codec::brief_list(c.axes[a]));
    }
  }
  return fmt::format("rotate d={} at positions {}{}{}{}", c.x.cols(), at,
                     c.seq_len ? fmt::format(" (seq_len {})", *c.seq_len) : std::string(),
                     c.layer ? fmt::format(" as layer {}", *c.layer) : std::string(),
                     c.shift ? fmt::format(", shifted by {}", *c.shift) : std::string());
}

CallReach reach(const RotateCall& c, std::int64_t) {
  std::optional<Position> position = codec::largest(c.positions);
  if (position && c.shift && *c.shift > 0) *position += *c.shift;  // a shift reaches p + Δ
  for (const auto& axis : c.axes) {
    const auto top = codec::largest(axis);
    if (top && (!position || *top > *position)) position = top;
  }
  return {RotateCall::kOp, position, codec::sizes({{Axis::width, c.x.cols()}, {Axis::rows, c.x.rows()}}), c.seq_len};
}

// params.rotate: the rotary convention (rotate_declarations.h), and
// the op's shapes, which a layer's rotary in params.forward.layers does not repeat.
void read_params(const json& given, SubjectInfo& info) {
  // head_dim (a config's name) is shapes.d (the protocol's schema).
  json object = process::nested_aliases_resolved(given, "params.rotate", "params.rotate");
  // context_shift is the op's (what its requests may carry), not the rotary's: a layer's rotate has none.
  if (object.is_object() && object.contains("context_shift")) {
    const json& v = object.at("context_shift");
    if (!v.is_boolean()) {
      process::bad("params.rotate.context_shift",
                   fmt::format("params.rotate.context_shift must be true or false, got {}", process::brief(v)));
    }
    info.context_shift = info.context_shift || v.get<bool>();
    info.declared.push_back("params.rotate.context_shift");
    object.erase("context_shift");
  }
  if (object.is_object() && object.contains("shapes")) {
    process::read_shapes(object.at("shapes"), RotateCall::kOp, info);
    json convention = object;
    convention.erase("shapes");
    info.rotate = process::read_rotate_convention(convention, "params.rotate", info.declared);
    // An MLA head is qk_nope_head_dim + qk_rope_head_dim wide: a declared d
    // without that width leaves no request to send (the hostile pass found
    // d 8 beside 64 + 64 accepted, and the run red on the subject).
    if (info.rotate.decoupled()) {
      const std::int64_t head = *info.rotate.qk_rope_head_dim + info.rotate.qk_nope_head_dim.value_or(0);
      if (const Extent* d = info.shapes.find(RotateCall::kOp, ShapeDim::d); d && !d->contains(head)) {
        process::bad("params.rotate.shapes.d",
                     fmt::format("params.rotate.shapes.d ({}) must allow the head of params.rotate.qk_nope_head_dim + "
                                 "qk_rope_head_dim = {} features",
                                 d->describe(), head));
      }
    }
    return;
  }
  info.rotate = process::read_rotate_convention(object, "params.rotate", info.declared);
}

json write_params(const SubjectInfo& info) {
  json rotate = process::rotate_json(info.rotate, process::declared(info, "params.rotate.base"));
  if (info.rotate.scaling.type == ScalingType::none && process::declared(info, "params.rotate.scaling.type")) {
    rotate["scaling"] = {{"type", "none"}};
  }
  if (json s = process::shapes_json(info, RotateCall::kOp); !s.is_null()) rotate["shapes"] = std::move(s);
  if (info.context_shift && !(info.forward && process::declared(info, "params.forward.context_shift"))) {
    rotate["context_shift"] = true;
  }
  return rotate;
}

}  // namespace rotate_codec

const Codec<RotateCall>& RotateCall::codec() {
  static const Codec<RotateCall> codec{
      .put = &rotate_codec::put,
      .size_hint = &rotate_codec::size_hint,
      .expected = &rotate_codec::expected,
      .check = &rotate_codec::check,
      .read = &rotate_codec::read,
      .to_json = &rotate_codec::to_json,
      .from_json = &rotate_codec::from_json,
      .describe = &rotate_codec::describe,
      .reach = &rotate_codec::reach,
      .params = {.read = &rotate_codec::read_params, .write = &rotate_codec::write_params}};
  return codec;
}

}  // namespace pecheck

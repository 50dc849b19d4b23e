#include "history/script.h"

#include <fmt/format.h>

#include "pecheck/core/overloaded.h"
#include "pecheck/property/property.h"

namespace pecheck::history {

namespace {

constexpr std::size_t kLongestScript = 1000;   // a recorded script beyond this is not one pecheck wrote
constexpr std::size_t kLargestArray = 1 << 20; // entries of one request's arrays

const json& field(const json& r, const char* key) {
  if (!r.contains(key)) throw InvalidInput(fmt::format("a {} request needs \"{}\"", r.value("op", "?"), key));
  return r[key];
}

template <class T>
T number(const json& r, const char* key) {
  const json& v = field(r, key);
  if (!v.is_number_integer()) throw InvalidInput(fmt::format("\"{}\" must be an integer", key));
  return v.get<T>();
}

Matrix matrix(const json& r, const char* key) {
  try {
    Matrix m = matrix_from_json(field(r, key));
    if (static_cast<std::size_t>(m.size()) > kLargestArray) throw InvalidInput(fmt::format("\"{}\" is too large", key));
    return m;
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(fmt::format("\"{}\": {}", key, e.what()));
  }
}

Positions positions(const json& v, const char* key) {
  if (!v.is_array() || v.size() > kLargestArray) throw InvalidInput(fmt::format("\"{}\" must be a list", key));
  Positions out;
  for (const auto& t : v) {
    if (!t.is_number_integer() || t.get<Position>() < 0) {
      throw InvalidInput(fmt::format("\"{}\" must hold positions ≥ 0", key));
    }
    out.push_back(t.get<Position>());
  }
  return out;
}

std::string session(const json& r) {
  const json& s = field(r, "session");
  if (!s.is_string()) throw InvalidInput("\"session\" must be a string");
  return s.get<std::string>();
}

}  // namespace

json request_to_json(const Call& call) {
  return std::visit(
      Overloaded{
          [](const EncodeCall& c) -> json {
            return {{"op", "encode"}, {"dim", c.dim}, {"positions", c.positions}, {"seq_len", c.seq_len}};
          },
          [](const AttentionCall& c) -> json {
            json mask = c.mask.kind == AttentionMask::Kind::causal ? json("causal")
                        : c.mask.kind == AttentionMask::Kind::none ? json("none")
                                                                    : bool_matrix_to_json(c.mask.allowed);
            json j = {{"op", "attention"}, {"q", c.q}, {"k", c.k}, {"v", c.v}, {"mask", mask}};
            if (c.heads != 1) j["heads"] = c.heads;
            return j;
          },
          [](const RotateCall& c) -> json {
            // Multi-axis positions as the protocol sends them: one list per axis.
            json j = {{"op", "rotate"}, {"positions", c.axes.empty() ? json(c.positions) : json(c.axes)}, {"x", c.x}};
            if (c.seq_len) j["seq_len"] = *c.seq_len;
            if (c.layer) j["layer"] = *c.layer;
            return j;
          },
          [](const BiasCall& c) -> json { return {{"op", "bias"}, {"n", c.n}, {"m", c.m}, {"head", c.head}}; },
          [](const ForwardCall& c) -> json {
            json j = {{"op", "forward"}, {"x", c.x}};
            if (!c.positions.empty()) j["positions"] = c.positions;
            if (c.padding.size() > 0) j["padding"] = c.padding;
            if (!c.segments.empty()) j["segments"] = c.segments;
            return j;
          },
          [](const DecodeCall& c) -> json {
            return {{"op", "decode"},
                    {"session", c.session},
                    {"x", std::vector<double>(c.x.data(), c.x.data() + c.x.size())},
                    {"position", c.position}};
          },
          [](const ResetCall& c) -> json {
            json j = {{"op", "reset"}, {"session", c.session}};
            if (c.capacity) j["capacity"] = *c.capacity;
            return j;
          },
          [](const DecodeTokensCall& c) -> json {
            return {{"op", "decode"}, {"session", c.session}, {"x", c.x}, {"positions", c.positions}};
          },
          // In-process ops: no script asks them (the protocol has neither); written for completeness.
          [](const LogitsCall& c) -> json { return {{"op", "logits"}, {"q", c.q}, {"k", c.k}}; },
          [](const CombineCall& c) -> json { return {{"op", "combine"}, {"a", c.a}, {"b", c.b}}; }},
      call);
}

Call request_from_json(const json& r) {
  if (!r.is_object() || !r.contains("op") || !r["op"].is_string()) {
    throw InvalidInput("a request is an object with an \"op\"");
  }
  const std::string op = r["op"].get<std::string>();
  if (op == "encode") return EncodeCall{number<int>(r, "dim"), positions(field(r, "positions"), "positions"),
                                        number<Position>(r, "seq_len")};
  if (op == "rotate") {
    const json& at = field(r, "positions");
    RotateCall c{{}, matrix(r, "x"), std::nullopt};
    if (at.is_array() && !at.empty() && at.front().is_array()) {
      if (at.size() > 3) throw InvalidInput("\"positions\": at most 3 axes");
      for (const auto& axis : at) c.axes.push_back(positions(axis, "positions"));
    } else {
      c.positions = positions(at, "positions");
    }
    if (r.contains("seq_len")) c.seq_len = number<Position>(r, "seq_len");
    if (r.contains("layer")) c.layer = number<int>(r, "layer");
    return c;
  }
  if (op == "attention") {
    AttentionCall c{matrix(r, "q"), matrix(r, "k"), matrix(r, "v"), AttentionMask::none()};
    const json& mask = field(r, "mask");
    if (mask == "causal") c.mask = AttentionMask::causal();
    else if (mask.is_array()) c.mask = AttentionMask::boolean(bool_matrix_from_json(mask));
    else if (mask != "none") throw InvalidInput("\"mask\" is \"none\", \"causal\" or a boolean matrix");
    if (r.contains("heads")) c.heads = number<int>(r, "heads");
    return c;
  }
  if (op == "bias") return BiasCall{number<int>(r, "n"), number<int>(r, "m"), number<int>(r, "head")};
  if (op == "forward") {
    ForwardCall c;
    const json& x = field(r, "x");
    if (!x.is_array()) throw InvalidInput("\"x\" must be a list of sequences");
    for (const auto& sequence : x) c.x.push_back(matrix(json{{"x", sequence}}, "x"));
    if (r.contains("positions")) {
      for (const auto& row : r["positions"]) c.positions.push_back(positions(row, "positions"));
    }
    if (r.contains("padding")) c.padding = bool_matrix_from_json(r["padding"]);
    if (r.contains("segments")) {
      for (const auto& row : r["segments"]) c.segments.push_back(positions(row, "segments"));
    }
    return c;
  }
  if (op == "decode" && r.contains("positions")) {
    return DecodeTokensCall{session(r), matrix(r, "x"), positions(field(r, "positions"), "positions")};
  }
  if (op == "decode") {
    const Matrix x = matrix(json{{"x", json::array({field(r, "x")})}}, "x");
    return DecodeCall{session(r), x.row(0).transpose(), number<Position>(r, "position")};
  }
  if (op == "reset") {
    ResetCall c{session(r), std::nullopt};
    if (r.contains("capacity")) c.capacity = number<Position>(r, "capacity");
    return c;
  }
  throw InvalidInput(fmt::format("\"{}\" is not an op a history script can hold", op));
}

void to_json(json& j, const Script& script) {
  j = json::array();
  for (const auto& call : script.requests) j.push_back(request_to_json(call));
}

void from_json(const json& j, Script& script) {
  if (!j.is_array()) throw InvalidInput("a history script is a JSON list of requests");
  if (j.empty() || j.size() > kLongestScript) {
    throw InvalidInput(fmt::format("a history script holds 1..{} requests", kLongestScript));
  }
  script.requests.clear();
  for (const auto& r : j) {
    try {
      script.requests.push_back(request_from_json(r));
    } catch (const json::exception& e) {
      throw InvalidInput(e.what());
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(e.what());
    }
  }
}

std::string describe(const Call& call) {
  auto list = [](const Positions& p) {
    std::string out;
    for (size_t i = 0; i < p.size() && i < 6; ++i) out += fmt::format("{}{}", i ? ", " : "", p[i]);
    return p.size() > 6 ? out + ", …" : out;
  };
  return std::visit(
      Overloaded{
          [&](const EncodeCall& c) {
            return fmt::format("encode d={} at positions {} (seq_len {})", c.dim, list(c.positions), c.seq_len);
          },
          [](const AttentionCall& c) { return fmt::format("attention of {} queries, {} keys", c.q.rows(), c.k.rows()); },
          [&](const RotateCall& c) {
            std::string at = list(c.positions);
            if (!c.axes.empty()) {
              at.clear();
              const char* names[] = {"t", "h", "w"};
              for (size_t a = 0; a < c.axes.size() && a < 3; ++a) {
                at += fmt::format("{}{} [{}]", a ? ", " : "", names[a], list(c.axes[a]));
              }
            }
            return fmt::format("rotate d={} at positions {}{}{}", c.x.cols(), at,
                               c.seq_len ? fmt::format(" (seq_len {})", *c.seq_len) : std::string(),
                               c.layer ? fmt::format(" as layer {}", *c.layer) : std::string());
          },
          [](const BiasCall& c) { return fmt::format("bias {}×{} of head {}", c.n, c.m, c.head); },
          [&](const ForwardCall& c) {
            return fmt::format("forward of {} sequence(s) of {} tokens{}", c.x.size(),
                               c.x.empty() ? 0 : c.x.front().rows(),
                               c.positions.empty() ? std::string()
                                                   : fmt::format(" at positions {}", list(c.positions.front())));
          },
          [](const DecodeCall& c) { return fmt::format("decode in session \"{}\" at position {}", c.session, c.position); },
          [](const ResetCall& c) {
            return fmt::format("reset session \"{}\"{}", c.session,
                               c.capacity ? fmt::format(" with capacity {}", *c.capacity) : std::string());
          },
          [&](const DecodeTokensCall& c) {
            return fmt::format("decode {} tokens in session \"{}\" at positions {}", c.x.rows(), c.session,
                               list(c.positions));
          },
          [](const LogitsCall& c) { return fmt::format("logits of {} queries over {} keys", c.q.rows(), c.k.rows()); },
          [](const CombineCall& c) { return fmt::format("combine of {} rows", c.a.rows()); }},
      call);
}

}  // namespace pecheck::history

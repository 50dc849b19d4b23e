// Helpers the codecs share (codec.h, namespace codec).
#include <fmt/format.h>

#include "protocol/codec.h"

namespace pecheck::codec {

namespace {
constexpr std::size_t kLargestArray = 1 << 20;  // entries of one request's arrays in a report
}  // namespace

const json& field(const json& r, const char* key) {
  if (!r.contains(key)) throw std::invalid_argument(fmt::format("a {} request needs \"{}\"", r.value("op", "?"), key));
  return r[key];
}

int integer(const json& r, const char* key) {
  const json& v = field(r, key);
  if (!v.is_number_integer()) throw std::invalid_argument(fmt::format("\"{}\" must be an integer", key));
  return v.get<int>();
}

Position position(const json& r, const char* key) {
  const json& v = field(r, key);
  if (!v.is_number_integer()) throw std::invalid_argument(fmt::format("\"{}\" must be an integer", key));
  return v.get<Position>();
}

Matrix matrix(const json& r, const char* key) {
  try {
    Matrix m = matrix_from_json(field(r, key));
    if (static_cast<std::size_t>(m.size()) > kLargestArray) {
      throw std::invalid_argument(fmt::format("\"{}\" is too large", key));
    }
    return m;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("\"{}\": {}", key, e.what()));
  }
}

Positions positions(const json& v, const char* key) {
  if (!v.is_array() || v.size() > kLargestArray) throw std::invalid_argument(fmt::format("\"{}\" must be a list", key));
  Positions out;
  for (const auto& t : v) {
    if (!t.is_number_integer() || t.get<Position>() < 0) {
      throw std::invalid_argument(fmt::format("\"{}\" must hold positions ≥ 0", key));
    }
    out.push_back(t.get<Position>());
  }
  return out;
}

std::string session(const json& r) {
  const json& s = field(r, "session");
  if (!s.is_string()) throw std::invalid_argument("\"session\" must be a string");
  return s.get<std::string>();
}

std::string brief_list(const Positions& p) {
  std::string out;
  for (std::size_t i = 0; i < p.size() && i < 6; ++i) out += fmt::format("{}{}", i ? ", " : "", p[i]);
  return p.size() > 6 ? out + ", …" : out;
}

void check_layer(const SubjectInfo& subject, int layer) {
  const int layers = subject.forward ? static_cast<int>(subject.forward->layers.size()) : 0;
  if (layer < 0 || layer >= layers) {
    throw Refusal(fmt::format("layer {} is not one of the {} layers {} declares", layer, layers, subject.name));
  }
}

AttentionMask mask_from_wire(const json& mask) {
  if (mask.is_null() || mask == "none") return AttentionMask::none();
  if (mask == "causal") return AttentionMask::causal();
  if (mask.is_array()) return AttentionMask::boolean(bool_matrix_from_json(mask));
  throw Malformed("mask must be \"none\", \"causal\" or an array of booleans");
}

bool head_tensors(const json& q) {
  if (q.is_object() && q.contains("shape") && q["shape"].is_array()) return q["shape"].size() == 3;
  return q.is_array() && !q.empty() && q[0].is_array() && !q[0].empty() && q[0][0].is_array();
}

}  // namespace pecheck::codec

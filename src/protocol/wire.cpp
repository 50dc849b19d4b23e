#include "protocol/wire.h"

#include <bit>
#include <cmath>
#include <iterator>
#include <vector>

#include "pecheck/core/json.h"
#include "protocol/base64.h"

namespace pecheck::process {

namespace {

void put_b64le(Buffer& out, const double* values, std::size_t count, std::initializer_list<Eigen::Index> shape) {
  put(out, "{\"b64le\":\"");
  // Encoded where it goes: a batch line holds hundreds of these arrays.
  const std::size_t at = out.size();
  out.resize(at + base64_size(8 * count));
  if constexpr (std::endian::native == std::endian::little) {
    base64_encode_to({reinterpret_cast<const char*>(values), 8 * count}, out.data() + at);
  } else {
    base64_encode_to(le_float64_bytes(values, count), out.data() + at);
  }
  put(out, "\",\"dtype\":\"float64\",\"shape\":[");
  bool first = true;
  for (Eigen::Index n : shape) {
    if (!first) out.push_back(',');
    first = false;
    fmt::format_to(std::back_inserter(out), "{}", n);
  }
  put(out, "]}");
}

void put_rows(Buffer& out, const Matrix& m) {
  out.push_back('[');
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (r) out.push_back(',');
    out.push_back('[');
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) out.push_back(',');
      put_number(out, m(r, c));
    }
    out.push_back(']');
  }
  out.push_back(']');
}

}  // namespace

void put(Buffer& out, std::string_view text) { out.append(text.data(), text.data() + text.size()); }

void put_number(Buffer& out, double x) {
  if (std::isnan(x)) return put(out, "NaN");
  if (std::isinf(x)) return put(out, x > 0 ? "Infinity" : "-Infinity");
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), "{}", x);  // shortest round-trip text
  for (std::size_t i = start; i < out.size(); ++i) {
    if (out[i] == '.' || out[i] == 'e' || out[i] == 'E') return;
  }
  put(out, ".0");
}

void put_string(Buffer& out, std::string_view text) {
  put(out, json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace));
}

void put_positions(Buffer& out, const Positions& positions) {
  out.push_back('[');
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}", positions[i]);
  }
  out.push_back(']');
}

void put_matrix(Buffer& out, const Matrix& m, Arrays arrays) {
  // Matrix is row-major: its storage is the b64le order.
  if (arrays == Arrays::b64le) return put_b64le(out, m.data(), static_cast<std::size_t>(m.size()), {m.rows(), m.cols()});
  put_rows(out, m);
}

void put_vector(Buffer& out, const Vector& v, Arrays arrays) {
  if (arrays == Arrays::b64le) return put_b64le(out, v.data(), static_cast<std::size_t>(v.size()), {v.size()});
  out.push_back('[');
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i) out.push_back(',');
    put_number(out, v(i));
  }
  out.push_back(']');
}

void put_tensor(Buffer& out, const Batch& x, Arrays arrays) {
  const Eigen::Index rows = x.empty() ? 0 : x.front().rows(), cols = x.empty() ? 0 : x.front().cols();
  bool uniform = true;
  for (const Matrix& m : x) uniform = uniform && m.rows() == rows && m.cols() == cols;
  if (arrays == Arrays::b64le && uniform) {
    std::vector<double> values;
    values.reserve(x.size() * static_cast<std::size_t>(rows * cols));
    for (const Matrix& m : x) values.insert(values.end(), m.data(), m.data() + m.size());
    return put_b64le(out, values.data(), values.size(), {static_cast<Eigen::Index>(x.size()), rows, cols});
  }
  out.push_back('[');
  for (std::size_t b = 0; b < x.size(); ++b) {
    if (b) out.push_back(',');
    put_rows(out, x[b]);
  }
  out.push_back(']');
}

void put_bool_matrix(Buffer& out, const BoolMatrix& m) {
  out.push_back('[');
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (r) out.push_back(',');
    out.push_back('[');
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) out.push_back(',');
      put(out, m(r, c) ? "true" : "false");
    }
    out.push_back(']');
  }
  out.push_back(']');
}

void put_mask(Buffer& out, const AttentionMask& mask) {
  switch (mask.kind) {
    case AttentionMask::Kind::none: return put(out, "\"none\"");
    case AttentionMask::Kind::causal: return put(out, "\"causal\"");
    case AttentionMask::Kind::boolean: break;
  }
  put_bool_matrix(out, mask.allowed);
}

}  // namespace pecheck::process

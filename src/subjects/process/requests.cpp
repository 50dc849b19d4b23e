#include "subjects/process/requests.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace pecheck::process {

namespace {

using Buffer = fmt::memory_buffer;

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

void put_matrix(Buffer& out, const Matrix& m) {
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

void put_positions(Buffer& out, const Positions& positions) {
  out.push_back('[');
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}", positions[i]);
  }
  out.push_back(']');
}

void put_mask(Buffer& out, const AttentionMask& mask) {
  switch (mask.kind) {
    case AttentionMask::Kind::none: return put(out, "\"none\"");
    case AttentionMask::Kind::causal: return put(out, "\"causal\"");
    case AttentionMask::Kind::boolean: break;
  }
  out.push_back('[');
  for (Eigen::Index r = 0; r < mask.allowed.rows(); ++r) {
    if (r) out.push_back(',');
    out.push_back('[');
    for (Eigen::Index c = 0; c < mask.allowed.cols(); ++c) {
      if (c) out.push_back(',');
      put(out, mask.allowed(r, c) ? "true" : "false");
    }
    out.push_back(']');
  }
  out.push_back(']');
}

Buffer start(RequestId id, std::string_view op) {
  Buffer out;
  fmt::format_to(std::back_inserter(out), "{{\"id\":{},\"op\":\"{}\"", id, op);
  return out;
}

std::string finish(Buffer& out) {
  put(out, "}\n");
  return fmt::to_string(out);
}

}  // namespace

std::string hello_request(RequestId id) {
  Buffer out = start(id, "hello");
  put(out, ",\"protocol\":1");
  return finish(out);
}

std::string encode_request(RequestId id, int dim, const Positions& positions, Position seq_len) {
  Buffer out = start(id, "encode");
  fmt::format_to(std::back_inserter(out), ",\"dim\":{},\"positions\":", dim);
  put_positions(out, positions);
  fmt::format_to(std::back_inserter(out), ",\"seq_len\":{}", seq_len);
  return finish(out);
}

std::string attention_request(RequestId id, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionMask& mask) {
  Buffer out = start(id, "attention");
  put(out, ",\"q\":");
  put_matrix(out, q);
  put(out, ",\"k\":");
  put_matrix(out, k);
  put(out, ",\"v\":");
  put_matrix(out, v);
  put(out, ",\"mask\":");
  put_mask(out, mask);
  return finish(out);
}

std::string rotate_request(RequestId id, const Positions& positions, const Matrix& x) {
  Buffer out = start(id, "rotate");
  put(out, ",\"positions\":");
  put_positions(out, positions);
  put(out, ",\"x\":");
  put_matrix(out, x);
  return finish(out);
}

std::string shutdown_request(RequestId id) {
  Buffer out = start(id, "shutdown");
  return finish(out);
}

}  // namespace pecheck::process

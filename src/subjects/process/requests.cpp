#include "subjects/process/requests.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "pecheck/core/overloaded.h"

namespace pecheck::process {

namespace {

bool default_positions(const ForwardCall& call) {
  if (call.positions.empty()) return true;
  for (const Positions& row : call.positions) {
    for (std::size_t t = 0; t < row.size(); ++t) {
      if (row[t] != static_cast<Position>(t)) return false;
    }
  }
  return true;
}

// The fields of each request after its opening brace: "op":"…",…
void put_encode(Buffer& out, int dim, const Positions& positions, Position seq_len) {
  fmt::format_to(std::back_inserter(out), "\"op\":\"encode\",\"dim\":{},\"positions\":", dim);
  put_positions(out, positions);
  fmt::format_to(std::back_inserter(out), ",\"seq_len\":{}", seq_len);
}

void put_attention(Buffer& out, const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   Arrays arrays) {
  put(out, "\"op\":\"attention\",\"q\":");
  put_matrix(out, q, arrays);
  put(out, ",\"k\":");
  put_matrix(out, k, arrays);
  put(out, ",\"v\":");
  put_matrix(out, v, arrays);
  put(out, ",\"mask\":");
  put_mask(out, mask);
}

// q as H × n × d_h, k and v as G × m × d (G = k's width over d_h).
void put_attention_heads(Buffer& out, const AttentionCall& c, Arrays arrays) {
  const int heads = std::max(1, c.heads);
  const Eigen::Index d_head = c.q.cols() / heads;
  const int groups = d_head > 0 && c.k.cols() % d_head == 0 ? static_cast<int>(c.k.cols() / d_head) : 1;
  put(out, "\"op\":\"attention\",\"q\":");
  put_tensor(out, columns_to_heads(c.q, heads), arrays);
  put(out, ",\"k\":");
  put_tensor(out, columns_to_heads(c.k, groups), arrays);
  put(out, ",\"v\":");
  put_tensor(out, columns_to_heads(c.v, groups), arrays);
  put(out, ",\"mask\":");
  put_mask(out, c.mask);
}

// positions: one list, or one per axis (3 × n) for multi-axis positions;
// layer: the module layer whose rotation is asked for.
void put_rotate(Buffer& out, const RotateCall& c, Arrays arrays) {
  put(out, "\"op\":\"rotate\",\"positions\":");
  if (c.axes.empty()) {
    put_positions(out, c.positions);
  } else {
    out.push_back('[');
    for (std::size_t a = 0; a < c.axes.size(); ++a) {
      if (a) out.push_back(',');
      put_positions(out, c.axes[a]);
    }
    out.push_back(']');
  }
  put(out, ",\"x\":");
  put_matrix(out, c.x, arrays);
  if (c.seq_len) fmt::format_to(std::back_inserter(out), ",\"seq_len\":{}", *c.seq_len);
  if (c.layer) fmt::format_to(std::back_inserter(out), ",\"layer\":{}", *c.layer);
}

void put_fields(Buffer& out, const Call& call, Arrays arrays, bool head_tensors) {
  std::visit(
      Overloaded{
          [&](const EncodeCall& c) { put_encode(out, c.dim, c.positions, c.seq_len); },
          [&](const AttentionCall& c) {
            if (head_tensors) put_attention_heads(out, c, arrays);
            else put_attention(out, c.q, c.k, c.v, c.mask, arrays);
          },
          [&](const RotateCall& c) { put_rotate(out, c, arrays); },
          [&](const BiasCall& c) {
            fmt::format_to(std::back_inserter(out), "\"op\":\"bias\",\"n\":{},\"m\":{},\"head\":{}", c.n, c.m, c.head);
          },
          [&](const ForwardCall& c) {
            put(out, "\"op\":\"forward\",\"x\":");
            put_tensor(out, c.x, arrays);
            if (!default_positions(c)) {
              put(out, ",\"positions\":[");
              for (std::size_t b = 0; b < c.positions.size(); ++b) {
                if (b) out.push_back(',');
                put_positions(out, c.positions[b]);
              }
              out.push_back(']');
            }
            if (c.padding.size() > 0 && !c.padding.all()) {
              put(out, ",\"padding\":");
              put_bool_matrix(out, c.padding);
            }
            if (c.layer) fmt::format_to(std::back_inserter(out), ",\"layer\":{}", *c.layer);
            if (!c.segments.empty()) {
              put(out, ",\"segments\":[");
              for (std::size_t b = 0; b < c.segments.size(); ++b) {
                if (b) out.push_back(',');
                put_positions(out, c.segments[b]);
              }
              out.push_back(']');
            }
          },
          [&](const DecodeCall& c) {
            put(out, "\"op\":\"decode\",\"session\":");
            put_string(out, c.session);
            put(out, ",\"x\":");
            put_vector(out, c.x, arrays);
            fmt::format_to(std::back_inserter(out), ",\"position\":{}", c.position);
          },
          [&](const ResetCall& c) {
            put(out, "\"op\":\"reset\",\"session\":");
            put_string(out, c.session);
            if (c.capacity) fmt::format_to(std::back_inserter(out), ",\"capacity\":{}", *c.capacity);
          },
          [&](const DecodeTokensCall& c) {
            put(out, "\"op\":\"decode\",\"session\":");
            put_string(out, c.session);
            put(out, ",\"x\":");
            put_matrix(out, c.x, arrays);
            put(out, ",\"positions\":");
            put_positions(out, c.positions);
          },
          // In-process ops: a process subject refuses them before writing (process_subject.cpp).
          [&](const LogitsCall&) { throw std::logic_error("logits is not an op of the subject protocol"); },
          [&](const CombineCall&) { throw std::logic_error("combine is not an op of the subject protocol"); }},
      call);
}

Buffer start(RequestId id) {
  Buffer out;
  fmt::format_to(std::back_inserter(out), "{{\"id\":{},", id);
  return out;
}

std::string finish(Buffer& out) {
  put(out, "}\n");
  return fmt::to_string(out);
}

}  // namespace

std::string hello_request(RequestId id) {
  Buffer out = start(id);
  fmt::format_to(std::back_inserter(out), "\"op\":\"hello\",\"protocol\":{}", kProtocol);
  return finish(out);
}

std::string call_request(RequestId id, const Call& call, Arrays arrays, bool head_tensors) {
  Buffer out = start(id);
  put_fields(out, call, arrays, head_tensors);
  return finish(out);
}

std::string encode_request(RequestId id, int dim, const Positions& positions, Position seq_len) {
  Buffer out = start(id);
  put_encode(out, dim, positions, seq_len);
  return finish(out);
}

std::string attention_request(RequestId id, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionMask& mask, Arrays arrays) {
  Buffer out = start(id);
  put_attention(out, q, k, v, mask, arrays);
  return finish(out);
}

std::string rotate_request(RequestId id, const Positions& positions, const Matrix& x, std::optional<Position> seq_len,
                           Arrays arrays) {
  return call_request(id, RotateCall{positions, x, seq_len}, arrays);
}

std::string bias_request(RequestId id, int n, int m, int head) { return call_request(id, BiasCall{n, m, head}); }

std::string forward_request(RequestId id, const ForwardCall& call, Arrays arrays) {
  return call_request(id, call, arrays);
}

std::string decode_request(RequestId id, const std::string& session, const Vector& x, Position position,
                           Arrays arrays) {
  return call_request(id, DecodeCall{session, x, position}, arrays);
}

std::string reset_request(RequestId id, const std::string& session) { return call_request(id, ResetCall{session}); }

namespace {

// About how many characters a request's fields take (numbers as b64le or as
// text, a mask's booleans, positions): a batch line's buffer is reserved
// once instead of grown, and copied, a dozen times on its way to megabytes.
std::size_t size_hint(const Call& call, Arrays arrays) {
  const std::size_t per_number = arrays == Arrays::b64le ? 11 : 24;
  auto numbers = [&](Eigen::Index n) { return per_number * static_cast<std::size_t>(n) + 64; };
  return 64 + std::visit(Overloaded{[&](const EncodeCall& c) { return 21 * c.positions.size(); },
                                    [&](const AttentionCall& c) {
                                      return numbers(c.q.size()) + numbers(c.k.size()) + numbers(c.v.size()) +
                                             6 * static_cast<std::size_t>(c.mask.allowed.size());
                                    },
                                    [&](const RotateCall& c) {
                                      std::size_t n = 21 * c.positions.size() + numbers(c.x.size());
                                      for (const Positions& p : c.axes) n += 21 * p.size();
                                      return n;
                                    },
                                    [&](const DecodeTokensCall& c) { return 21 * c.positions.size() + numbers(c.x.size()); },
                                    [&](const ForwardCall& c) {
                                      std::size_t n = 6 * static_cast<std::size_t>(c.padding.size());
                                      for (const Matrix& m : c.x) n += numbers(m.size());
                                      for (const Positions& p : c.positions) n += 21 * p.size();
                                      return n;
                                    },
                                    [&](const auto&) { return std::size_t{0}; }},
                         call);
}

}  // namespace

std::string batch_request(RequestId id, std::span<const Call> calls, Arrays arrays, bool head_tensors) {
  Buffer out = start(id);
  std::size_t hint = 64;
  for (const Call& call : calls) hint += size_hint(call, arrays);
  out.reserve(hint);
  put(out, "\"op\":\"batch\",\"requests\":[");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('{');
    put_fields(out, calls[i], arrays, head_tensors);
    out.push_back('}');
  }
  out.push_back(']');
  return finish(out);
}

std::string shutdown_request(RequestId id) {
  Buffer out = start(id);
  put(out, "\"op\":\"shutdown\"");
  return finish(out);
}

std::string fork_request(RequestId id, const std::string& socket, const std::string& log) {
  Buffer out = start(id);
  put(out, "\"op\":\"fork\",\"socket\":");
  put_string(out, socket);
  put(out, ",\"stderr\":");
  put_string(out, log);
  return finish(out);
}

}  // namespace pecheck::process

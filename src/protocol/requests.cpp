#include "protocol/requests.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "protocol/codec.h"

namespace pecheck::process {

namespace {

// A call's fields after its opening brace ("op":"…",…), by its codec.
void put_fields(Buffer& out, const Call& call, Arrays arrays, bool head_tensors) {
  const WireOptions wire{arrays, head_tensors};
  std::visit([&](const auto& c) { c.codec().put(out, c, wire); }, call);
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
  return call_request(id, EncodeCall{dim, positions, seq_len});
}

std::string attention_request(RequestId id, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionMask& mask, Arrays arrays) {
  return call_request(id, AttentionCall{q, k, v, mask}, arrays);
}

std::string rotate_request(RequestId id, const Positions& positions, const Matrix& x, std::optional<Position> seq_len,
                           Arrays arrays) {
  return call_request(id, RotateCall{positions, x, seq_len}, arrays);
}

std::string bias_request(RequestId id, int n, int m, int head) { return call_request(id, BiasCall{n, m, head}); }

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
  return 64 + std::visit([&](const auto& c) { return c.codec().size_hint(c, arrays); }, call);
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

std::string fork_request(RequestId id, const std::string& socket, const std::string& log,
                         const std::vector<long>& reap) {
  Buffer out = start(id);
  put(out, "\"op\":\"fork\",\"socket\":");
  put_string(out, socket);
  put(out, ",\"stderr\":");
  put_string(out, log);
  put(out, fmt::format(",\"reap\":[{}]", fmt::join(reap, ",")));
  return finish(out);
}

}  // namespace pecheck::process

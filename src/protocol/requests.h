#pragma once
// Requests of the subject protocol (SUBJECT-PROTOCOL.md, version 2), written
// straight to JSON text (wire.h): one line each, ending with its newline.
// Matrices, tensors and vectors go out as JSON numbers, or as b64le objects
// for a subject that listed "b64le" in its hello's `arrays`.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/protocol/calls.h"
#include "protocol/wire.h"

namespace pecheck::process {

using RequestId = std::int64_t;

// The protocol version this harness speaks (and sends in hello).
inline constexpr int kProtocol = 2;

std::string hello_request(RequestId id);
std::string encode_request(RequestId id, int dim, const Positions& positions, Position seq_len);
std::string attention_request(RequestId id, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionMask& mask, Arrays arrays = Arrays::json);
// seq_len is sent only when given.
std::string rotate_request(RequestId id, const Positions& positions, const Matrix& x,
                           std::optional<Position> seq_len = std::nullopt, Arrays arrays = Arrays::json);
std::string bias_request(RequestId id, int n, int m, int head);
std::string decode_request(RequestId id, const std::string& session, const Vector& x, Position position,
                           Arrays arrays = Arrays::json);
std::string reset_request(RequestId id, const std::string& session);
// Any call as a request of its own, written by its codec (src/protocol/). `head_tensors`: the subject declared
// params.attention.heads, so attention's q, k and v go out as heads × rows ×
// width tensors (calls.h columns_to_heads) of the call's heads and the key/value
// heads its widths imply; otherwise as one head's matrices.
std::string call_request(RequestId id, const Call& call, Arrays arrays = Arrays::json, bool head_tensors = false);
// Several calls in one line: {"id":N,"op":"batch","requests":[{"op":…},…]}.
std::string batch_request(RequestId id, std::span<const Call> calls, Arrays arrays = Arrays::json,
                          bool head_tensors = false);
std::string shutdown_request(RequestId id);
// {"id":N,"op":"fork","socket":PATH,"stderr":PATH,"reap":[PID,…]}: to a
// zygote (pecheck's extension, docs/SUBJECT-PROTOCOL.md "Fresh copies by
// fork"); `reap`: the ended copies whose ending pecheck has read.
std::string fork_request(RequestId id, const std::string& socket, const std::string& log,
                         const std::vector<long>& reap);

}  // namespace pecheck::process

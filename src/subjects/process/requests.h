#pragma once
// Requests of the subject protocol (SUBJECT-PROTOCOL.md), written straight to
// JSON text: matrices go out number by number, without building a JSON tree.
// Numbers are the shortest text that reads back as the same double, always
// with a decimal point or exponent (so a reader's JSON parser yields floats,
// never ints), and NaN / Infinity / -Infinity as the protocol's bare tokens.
// Each request ends with its newline.
#include <cstdint>
#include <string>

#include "pecheck/core/matrix.h"
#include "pecheck/subjects/subject.h"

namespace pecheck::process {

using RequestId = std::int64_t;

std::string hello_request(RequestId id);
std::string encode_request(RequestId id, int dim, const Positions& positions, Position seq_len);
std::string attention_request(RequestId id, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionMask& mask);
std::string rotate_request(RequestId id, const Positions& positions, const Matrix& x);
std::string shutdown_request(RequestId id);

}  // namespace pecheck::process

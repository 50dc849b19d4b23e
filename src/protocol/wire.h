#pragma once
// Writing the protocol's JSON text straight into a buffer, without building
// a JSON tree: numbers are the shortest text that reads back as the same
// double, always with a decimal point or exponent (so a reader's JSON parser
// yields floats, never ints), and NaN / Infinity / -Infinity as the
// protocol's bare tokens. Arrays go out as JSON numbers or, for a peer that
// accepts them, as b64le objects {"b64le":…,"dtype":"float64","shape":[…]}.
// Used for requests (requests.cpp) and for serve's answers.
#include <fmt/format.h>

#include <string_view>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::process {

using Buffer = fmt::memory_buffer;

// How matrices, tensors and vectors are written.
enum class Arrays { json, b64le };

void put(Buffer& out, std::string_view text);
void put_number(Buffer& out, double x);
void put_string(Buffer& out, std::string_view text);  // a JSON string (invalid UTF-8 replaced)
void put_positions(Buffer& out, const Positions& positions);
void put_matrix(Buffer& out, const Matrix& m, Arrays arrays);
void put_vector(Buffer& out, const Vector& v, Arrays arrays);
// B×N×d; b64le needs every matrix of one shape (else JSON rows are written).
void put_tensor(Buffer& out, const Batch& x, Arrays arrays);
void put_bool_matrix(Buffer& out, const BoolMatrix& m);
void put_mask(Buffer& out, const AttentionMask& mask);

}  // namespace pecheck::process

#pragma once
// What pecheck can send: the largest size on each declared dimension and the
// most numbers one request may carry (issue 39). A declaration of
// params.<op>.shapes that would make pecheck send more is refused before any
// request (exit 2, naming the field), so a declared size never overflows an
// int, exhausts memory or makes a generator scan billions of sizes. Plain
// functions of plain data; the hello reader and pecheck.toml's reader refuse
// with what they return, and the generators clamp to the same limits.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "pecheck/core/axis.h"
#include "pecheck/core/shapes.h"

namespace pecheck {

// The dimension an axis of a request is sized by (width → d, rows, queries and
// tokens → n, keys → m, heads, batch); none for positions and history, which
// depend on the op (property/sizes.h: declared_dim).
std::optional<ShapeDim> request_dim(Axis axis);

// The most numbers (matrix entries, float64) one request and its answer may
// carry together: 2^24, 128 MiB as float64 and some 400 MB of JSON text. The
// shape ladder's largest default case (4096 keys × a small width) is well
// below it; a request above it would take gigabytes once encoded.
inline constexpr std::int64_t kMostNumbersPerRequest = std::int64_t{1} << 24;

// The largest size pecheck sends on a dimension: d 65536 (twice the widest
// d_model of published models), n and m 2^20 (a million-token context),
// heads and kv_heads 4096 (the hello's own limit on params.attention.heads),
// batch 4096.
std::int64_t largest_sendable(ShapeDim dim);

// a × b, or nullopt where it overflows int64 (sizes are checked, never wrapped).
std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b);

// The numbers a request with these sizes carries with its answer, an upper
// estimate alike for every op: batch × heads × (n·d + 2·m·d + n·m) (queries,
// keys, values, a mask or the logits); a dimension not given is 1. Saturates
// at INT64_MAX.
std::int64_t request_numbers(const std::map<ShapeDim, std::int64_t>& sizes);

// The largest size the shape ladder may send on a dimension of `op` declared
// as this extent: its largest value for a list, else its minimum raised
// toward the ladder's top rung on the op's axes of that dimension (the op
// table's rungs; 64 where it has none) within its maximum.
std::int64_t largest_sent(Op op, ShapeDim dim, const Extent& extent);

// Why one op's declared shapes cannot be honoured (for an op with keys whose
// m is not declared, self-attention draws at least n's smallest keys), naming the dimension, or
// nullopt. `path` is "params.rotate.shapes".
struct SizeProblem {
  ShapeDim dim;
  std::string message;
};
std::optional<SizeProblem> size_problem(Op op, const std::map<ShapeDim, Extent>& dims, const std::string& path);

}  // namespace pecheck

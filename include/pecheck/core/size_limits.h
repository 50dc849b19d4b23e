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

// The longest line pecheck reads from a subject, derived from the cap above
// so that no request pecheck sizes can provoke an answer it refuses (issue
// 39: a bias declaring n up to 2^40 was sent a legal request whose honest
// answer, ~16M numbers, overran a fixed 64 MiB line limit and the subject was
// blamed). A number's text is at most 24 bytes (the shortest round-trip text
// of a double and C's %.17g alike: "-2.2250738585072014e-308"); with what may
// sit between two numbers of a nested array (", " as Python's json.dumps
// writes it, "], [" between rows of one column, one more bracket per level
// of a tensor) 32 bytes per number bound every honest writer, b64le (under
// 11 bytes a number) included. kLineFraming covers the rest of the line: the
// id, the keys of an object of arrays (a backward's gradients), an error's
// text. Batches are split so their answers stay within the same cap
// (process_subject.cpp, post_batch). The other direction has no such limit
// to keep: the readers pecheck ships (`pecheck serve`, the Python package)
// read a request line of any length, and pecheck's requests are bounded by
// the same cap.
inline constexpr std::int64_t kLongestNumberText = 32;
inline constexpr std::int64_t kLineFraming = std::int64_t{1} << 20;
inline constexpr std::int64_t kLongestAnswerLine = kMostNumbersPerRequest * kLongestNumberText + kLineFraming;

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

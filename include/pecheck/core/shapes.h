#pragma once
// Declared shapes (SUBJECT-PROTOCOL.md, "Declared shapes"): per op, the sizes
// a subject supports on each dimension of its requests — the width d, heads,
// kv_heads, the sequence lengths n and m, the batch — each a fixed value, a
// list or a range. Generators draw only inside them and the coverage gates
// are judged against them (property/sizes.h). Plain data.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck {

enum class Op : unsigned;  // core/vocabulary.h

// The dimensions a declaration names, as the protocol spells them.
enum class ShapeDim { d, heads, kv_heads, n, m, batch };
inline constexpr ShapeDim kShapeDims[] = {ShapeDim::d, ShapeDim::heads, ShapeDim::kv_heads,
                                          ShapeDim::n, ShapeDim::m,     ShapeDim::batch};
std::string_view name(ShapeDim dim);  // "d", "heads", "kv_heads", "n", "m", "batch"
std::optional<ShapeDim> parse_shape_dim(std::string_view text);

// The sizes one dimension may take: exactly `values` (a fixed value is a
// list of one), or every size in [min, max] (max: none, unbounded).
struct Extent {
  std::vector<std::int64_t> values;  // ascending, distinct; empty: the range
  std::int64_t min = 1;
  std::optional<std::int64_t> max;

  static Extent exactly(std::vector<std::int64_t> values);
  static Extent range(std::int64_t min, std::optional<std::int64_t> max);
  bool contains(std::int64_t size) const;
  std::int64_t smallest() const;
  std::optional<std::int64_t> largest() const;
  // The largest allowed size ≤ `size`, else the smallest allowed one above it.
  std::int64_t nearest_at_most(std::int64_t size) const;
  // "128", "64, 128", "16..4096", "≥ 16".
  std::string describe() const;
  bool operator==(const Extent&) const = default;
};

// params.<op>.shapes of every op that declares them.
struct DeclaredShapes {
  std::map<Op, std::map<ShapeDim, Extent>> ops;

  const Extent* find(Op op, ShapeDim dim) const;
  bool declares(Op op) const { return ops.count(op) > 0; }
  bool empty() const { return ops.empty(); }
  // "d 128, n 1..4096": one op's declaration in words.
  std::string describe(Op op) const;
};

}  // namespace pecheck

#pragma once
// The axes along which a cell's coverage is measured and gated: the sizes of
// the requests its judged cases sent (result/result.h: Coverage::axes).
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace pecheck {

// width     d of a request (per head for attention)
// rows      rows of one encode, rotate or combine request
// queries   n, the query rows of attention, logits and bias
// keys      m, the key rows of attention, logits and bias
// tokens    tokens of one sequence of a forward, or decoded into one session since its reset
// heads     heads of a request (attention's heads; bias: the highest head asked + 1)
// batch     sequences in one forward
// positions the largest position of a request
// history   requests one subject was sent within one case (the script of history_independence, a decode run)
enum class Axis { width, rows, queries, keys, tokens, heads, batch, positions, history };
inline constexpr Axis kAxes[] = {Axis::width,  Axis::rows,  Axis::queries,   Axis::keys,   Axis::tokens,
                                 Axis::heads,  Axis::batch, Axis::positions, Axis::history};
// One request's size on each axis (0: the request has none there).
using AxisSizes = std::array<std::int64_t, std::size(kAxes)>;
std::string_view name(Axis axis);
std::optional<Axis> parse_axis(std::string_view text);

}  // namespace pecheck

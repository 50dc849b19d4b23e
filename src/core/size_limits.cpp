#include "pecheck/core/size_limits.h"

#include <fmt/format.h>

#include <limits>

#include "pecheck/core/op_table.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kSmallDraws = 64;  // the most a search draws on an axis without a ladder

// The shape ladder's top rung on the axes of `op` a dimension sizes (the op table's rungs).
std::int64_t ladder_top(Op op, ShapeDim dim) {
  std::int64_t top = kSmallDraws;
  for (const OpRungs& rungs : op_row(op).ladder) {
    if (request_dim(rungs.axis) == dim && !rungs.sizes.empty()) top = std::max(top, rungs.sizes.back());
  }
  return top;
}

std::int64_t times(std::int64_t a, std::int64_t b) { return checked_product(a, b).value_or(kSaturated); }
std::int64_t plus(std::int64_t a, std::int64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

}  // namespace

std::optional<ShapeDim> request_dim(Axis axis) {
  switch (axis) {
    case Axis::width: return ShapeDim::d;
    case Axis::rows:
    case Axis::queries:
    case Axis::tokens: return ShapeDim::n;
    case Axis::keys: return ShapeDim::m;
    case Axis::heads: return ShapeDim::heads;
    case Axis::batch: return ShapeDim::batch;
    case Axis::positions:
    case Axis::history: return std::nullopt;
  }
  return std::nullopt;
}

std::int64_t largest_sendable(ShapeDim dim) {
  switch (dim) {
    case ShapeDim::d: return std::int64_t{1} << 16;
    case ShapeDim::n:
    case ShapeDim::m: return std::int64_t{1} << 20;
    case ShapeDim::heads:
    case ShapeDim::kv_heads:
    case ShapeDim::batch: return std::int64_t{1} << 12;
  }
  return 1;
}

std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::int64_t request_numbers(const std::map<ShapeDim, std::int64_t>& sizes) {
  auto at = [&](ShapeDim dim) {
    const auto it = sizes.find(dim);
    return it == sizes.end() ? std::int64_t{1} : it->second;
  };
  const std::int64_t n = at(ShapeDim::n), m = at(ShapeDim::m), d = at(ShapeDim::d);
  const std::int64_t per_head = plus(plus(times(n, d), times(times(2, m), d)), times(n, m));
  return times(times(at(ShapeDim::batch), at(ShapeDim::heads)), per_head);
}

std::int64_t largest_sent(Op op, ShapeDim dim, const Extent& extent) {
  if (!extent.values.empty()) return extent.values.back();
  const std::int64_t top = std::max(extent.min, ladder_top(op, dim));
  return extent.max ? std::min(top, *extent.max) : top;
}

std::optional<SizeProblem> size_problem(Op op, const std::map<ShapeDim, Extent>& dims, const std::string& path) {
  // Each size pecheck must or may send, against the dimension's limit: a
  // listed value and a range's minimum are sent (a range's maximum is only a
  // bound: the ladder stops at its own rungs).
  for (const auto& [dim, extent] : dims) {
    const std::int64_t limit = largest_sendable(dim);
    const std::int64_t sent = extent.values.empty() ? extent.min : extent.values.back();
    if (sent > limit) {
      return SizeProblem{dim, fmt::format("{}.{} declares {}, more than pecheck sends on {} (at most {}): declare "
                                          "the sizes the subject is used at, or a range",
                                          path, name(dim), sent, name(dim), limit)};
    }
  }
  // Each ladder case raises one dimension and keeps the others at their
  // smallest: every such request must fit kMostNumbersPerRequest. Where
  // several do not, the one raised highest is named.
  // Self-attention sends as many keys as queries: an op with keys whose m
  // is not declared sends at least n's smallest.
  const bool keyed = op_row(op).keyed;
  std::optional<SizeProblem> worst;
  std::int64_t worst_sent = 0;
  for (const auto& [dim, extent] : dims) {
    std::map<ShapeDim, std::int64_t> sizes;
    std::string described;
    for (const auto& [other, e] : dims) {
      sizes[other] = other == dim ? largest_sent(op, other, e) : e.smallest();
      described += fmt::format("{}{} {}", described.empty() ? "" : ", ", name(other), sizes[other]);
    }
    if (keyed && !dims.count(ShapeDim::m) && dims.count(ShapeDim::n)) {
      sizes[ShapeDim::m] = dims.at(ShapeDim::n).smallest();
      described += fmt::format(", m {} (keys as many as the queries)", sizes[ShapeDim::m]);
    }
    const std::int64_t numbers = request_numbers(sizes);
    if (numbers > kMostNumbersPerRequest && sizes[dim] > worst_sent) {
      worst_sent = sizes[dim];
      worst = SizeProblem{dim, fmt::format("{}.{}: a request at the declared sizes ({}) would carry {} numbers with "
                                           "its answer, more than pecheck sends in one request ({}, 128 MiB as "
                                           "float64): declare smaller sizes, or ranges",
                                           path, name(dim), described,
                                           numbers == kSaturated ? std::string("more than 2^63")
                                                                 : std::to_string(numbers),
                                           kMostNumbersPerRequest)};
    }
  }
  if (worst) return worst;
  return std::nullopt;
}

}  // namespace pecheck

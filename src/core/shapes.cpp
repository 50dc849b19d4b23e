#include "pecheck/core/shapes.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/axis.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

std::string_view name(ShapeDim dim) {
  switch (dim) {
    case ShapeDim::d: return "d";
    case ShapeDim::heads: return "heads";
    case ShapeDim::kv_heads: return "kv_heads";
    case ShapeDim::n: return "n";
    case ShapeDim::m: return "m";
    case ShapeDim::batch: return "batch";
  }
  return "?";
}

std::optional<ShapeDim> parse_shape_dim(std::string_view text) {
  for (ShapeDim d : kShapeDims) {
    if (name(d) == text) return d;
  }
  return std::nullopt;
}

Extent Extent::exactly(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  Extent e;
  e.values = std::move(values);
  return e;
}

Extent Extent::range(std::int64_t min, std::optional<std::int64_t> max) {
  Extent e;
  e.min = min;
  e.max = max;
  return e;
}

bool Extent::contains(std::int64_t size) const {
  if (!values.empty()) return std::binary_search(values.begin(), values.end(), size);
  return size >= min && (!max || size <= *max);
}

std::int64_t Extent::smallest() const { return values.empty() ? min : values.front(); }

std::optional<std::int64_t> Extent::largest() const {
  if (!values.empty()) return values.back();
  return max;
}

std::int64_t Extent::nearest_at_most(std::int64_t size) const {
  if (!values.empty()) {
    auto it = std::upper_bound(values.begin(), values.end(), size);
    return it == values.begin() ? values.front() : *std::prev(it);
  }
  if (size < min) return min;
  return max ? std::min(size, *max) : size;
}

std::string Extent::describe() const {
  if (!values.empty()) {
    std::string out;
    for (std::int64_t v : values) out += fmt::format("{}{}", out.empty() ? "" : ", ", v);
    return out;
  }
  if (!max) return fmt::format("≥ {}", min);
  if (*max == min) return std::to_string(min);
  return fmt::format("{}..{}", min, *max);
}

const Extent* DeclaredShapes::find(Op op, ShapeDim dim) const {
  const auto it = ops.find(op);
  if (it == ops.end()) return nullptr;
  const auto d = it->second.find(dim);
  return d == it->second.end() ? nullptr : &d->second;
}

std::string DeclaredShapes::describe(Op op) const {
  const auto it = ops.find(op);
  if (it == ops.end()) return {};
  std::string out;
  for (const auto& [dim, extent] : it->second) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name(dim), extent.describe());
  }
  return out;
}

std::string_view name(Axis axis) {
  switch (axis) {
    case Axis::width: return "width";
    case Axis::rows: return "rows";
    case Axis::queries: return "queries";
    case Axis::keys: return "keys";
    case Axis::tokens: return "tokens";
    case Axis::heads: return "heads";
    case Axis::batch: return "batch";
    case Axis::positions: return "positions";
    case Axis::history: return "history";
  }
  return "?";
}

std::optional<Axis> parse_axis(std::string_view text) {
  for (Axis a : kAxes) {
    if (name(a) == text) return a;
  }
  return std::nullopt;
}

}  // namespace pecheck

#include "runner/coverage_probe.h"

#include <fmt/format.h>

#include <algorithm>

namespace pecheck {

namespace {

std::optional<Position> largest(const Positions& positions) {
  if (positions.empty()) return std::nullopt;
  return *std::max_element(positions.begin(), positions.end());
}

void raise(std::optional<Position>& to, std::optional<Position> value) {
  if (value && (!to || *value > *to)) to = value;
}

}  // namespace

template <class F>
auto CoverageProbe::observe(std::optional<Position> position, int width, F answer) -> decltype(answer()) {
  last_width_ = width;
  try {
    auto result = answer();
    raise(case_position_, position);
    case_width_ = std::max(case_width_, width);
    return result;
  } catch (const Refusal&) {
    refused_.emplace_back(position, width);
    refused_width_ = std::max(refused_width_, width);
    case_refused_width_ = std::max(case_refused_width_, width);
    throw;
  }
}

Matrix CoverageProbe::encode(int dim, const Positions& positions, Position seq_len) {
  return observe(largest(positions), dim, [&] { return inner_.encode(dim, positions, seq_len); });
}

Matrix CoverageProbe::attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                                int heads) {
  return observe(std::nullopt, static_cast<int>(q.cols()), [&] { return inner_.attention(q, k, v, mask, heads); });
}

Matrix CoverageProbe::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  return observe(largest(positions), static_cast<int>(x.cols()), [&] { return inner_.rotate(positions, x, seq_len); });
}

Matrix CoverageProbe::rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                                  std::optional<Position> seq_len) {
  std::optional<Position> position;
  for (const auto& axis : positions) raise(position, largest(axis));
  return observe(position, static_cast<int>(x.cols()), [&] { return inner_.rotate_axes(positions, x, seq_len); });
}

Matrix CoverageProbe::rotate_layer(int layer, const Positions& positions, const Matrix& x,
                                   std::optional<Position> seq_len) {
  return observe(largest(positions), static_cast<int>(x.cols()),
                 [&] { return inner_.rotate_layer(layer, positions, x, seq_len); });
}

Matrix CoverageProbe::logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) {
  return observe(std::nullopt, static_cast<int>(q.cols()), [&] { return inner_.logits(q, k, mask); });
}

Matrix CoverageProbe::add(const Matrix& x, const Matrix& p) {
  return observe(std::nullopt, static_cast<int>(x.cols()), [&] { return inner_.add(x, p); });
}

Matrix CoverageProbe::concat(const Matrix& x, const Matrix& p) {
  return observe(std::nullopt, static_cast<int>(x.cols() + p.cols()), [&] { return inner_.concat(x, p); });
}

Matrix CoverageProbe::project(const Matrix& w, const Matrix& z) {
  return observe(std::nullopt, static_cast<int>(z.cols()), [&] { return inner_.project(w, z); });
}

Matrix CoverageProbe::bias(int n, int m, int head) {
  return observe(std::nullopt, 0, [&] { return inner_.bias(n, m, head); });
}

Batch CoverageProbe::forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  std::optional<Position> position;
  for (const auto& row : positions) raise(position, largest(row));
  const int width = x.empty() ? 0 : static_cast<int>(x.front().cols());
  return observe(position, width, [&] { return inner_.forward(x, positions, padding); });
}

Batch CoverageProbe::forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                                   const BoolMatrix& padding) {
  std::optional<Position> position;
  for (const auto& row : positions) raise(position, largest(row));
  const int width = x.empty() ? 0 : static_cast<int>(x.front().cols());
  return observe(position, width, [&] { return inner_.forward_layer(layer, x, positions, padding); });
}

Vector CoverageProbe::decode(const std::string& session, const Vector& x, Position position) {
  return observe(position, static_cast<int>(x.size()), [&] { return inner_.decode(session, x, position); });
}

void CoverageProbe::reset(const std::string& session) {
  observe(std::nullopt, 0, [&] {
    inner_.reset(session);
    return 0;
  });
}

Batch CoverageProbe::forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                                    const std::vector<Positions>& segments) {
  std::optional<Position> position;
  for (const auto& row : positions) raise(position, largest(row));
  const int width = x.empty() ? 0 : static_cast<int>(x.front().cols());
  return observe(position, width, [&] { return inner_.forward_packed(x, positions, padding, segments); });
}

Matrix CoverageProbe::decode_tokens(const std::string& session, const Matrix& x, const Positions& positions) {
  return observe(largest(positions), static_cast<int>(x.cols()),
                 [&] { return inner_.decode_tokens(session, x, positions); });
}

void CoverageProbe::reset_with_capacity(const std::string& session, Position capacity) {
  observe(std::nullopt, 0, [&] {
    inner_.reset_with_capacity(session, capacity);
    return 0;
  });
}

void CoverageProbe::begin_case() {
  case_position_.reset();
  case_width_ = 0;
  case_refused_width_ = 0;
}

void CoverageProbe::commit_case() {
  raise(checked_position_, case_position_);
  // A judged case checked the widths it asked, answered or refused as it should be.
  checked_width_ = std::max({checked_width_, case_width_, case_refused_width_});
}

void CoverageProbe::uncheckable_case() { raise(uncheckable_position_, case_position_); }

void CoverageProbe::fill(Coverage& c) const {
  c.max_position = checked_position_;
  c.max_width = checked_width_;
  c.max_uncheckable_position = uncheckable_position_;
  // A subject that refuses a pattern (odd d, d not divisible by its heads, a
  // rotary width its fraction rounds to 0) refuses as much below the largest
  // width or position it answered as above it; one that refuses a range
  // refuses mostly above it. Only a range is a shortfall of coverage.
  int within = 0, beyond = 0, positions_within = 0, positions_beyond = 0;
  std::optional<Position> refused_position;
  for (const auto& [position, width] : refused_) {
    if (width <= checked_width_) {
      ++within;
      if (!position) continue;
      raise(refused_position, position);
      const bool far = static_cast<double>(*position) > 1.1 * static_cast<double>(checked_position_.value_or(-1) + 1);
      ++(far ? positions_beyond : positions_within);
    } else {
      ++beyond;
    }
  }
  if (positions_beyond > positions_within) c.max_refused_position = refused_position;
  c.max_refused_width = beyond > within ? refused_width_ : 0;
}

std::string coverage_shortfall(const Coverage& c, bool positional) {
  if (positional && c.position_gate > 0) {
    const Position checked = c.max_position.value_or(-1);
    auto beyond = [checked](const std::optional<Position>& p) {
      return p && static_cast<double>(*p) > 1.1 * static_cast<double>(checked + 1);
    };
    const bool refused_beyond = beyond(c.max_refused_position);
    if (refused_beyond || beyond(c.max_uncheckable_position)) {
      const std::string why =
          refused_beyond ? fmt::format("the subject refused positions up to {}", *c.max_refused_position)
                         : fmt::format("cases up to position {} were not checkable at the subject's precision ({})",
                                       *c.max_uncheckable_position, c.not_checkable_reason);
      return fmt::format("checked positions only up to {} of the gate's {}: {}; gate what the subject handles with "
                         "--max-position {} (or fix the subject)",
                         checked < 0 ? std::string("none") : std::to_string(checked), c.position_gate, why,
                         std::max<Position>(checked, 1));
    }
  }
  if (c.max_refused_width > 0 && static_cast<double>(c.max_refused_width) > 1.1 * static_cast<double>(c.max_width)) {
    return fmt::format("checked widths only up to {}: the subject refused widths up to {}; gate what the subject "
                       "handles with --max-width {} (or fix the subject)",
                       c.max_width, c.max_refused_width, std::max(c.max_width, 1));
  }
  return {};
}

}  // namespace pecheck

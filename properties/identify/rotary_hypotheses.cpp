// What a rotary hypothesis predicts, how far the answers are from it, and
// what the answers read as (identify/rotary.h): hypotheses predicted in
// double, each judged with the error model of rope.reference_values
// (rope/common.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "angle_error.h"
#include "identify/rotary.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/typed_subject.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck::identify::rotary {

namespace {

// The position a hypothesis rotates row t by: offset, then a too-short cos/sin cache's index.
double used_position(const Hypothesis& h, Position t) {
  t += h.offset;
  if (h.cache_rows > 0 && t >= h.cache_rows) t = h.cache_wraps ? t % h.cache_rows : h.cache_rows - 1;
  return static_cast<double>(t);
}

// The hypothesis's frequencies, one per pair in pair order: the convention's
// (a 2-D rotary's pairs each at its axis's frequency,
// reference::rotary_frequency_index), or its Llama 3 scaling with a slip.
std::vector<double> inv_freq(const Hypothesis& h, int rotary_width, std::optional<Position> length) {
  if (h.llama3) return llama3_inv_freq(rotary_width, h.convention, length, *h.llama3);
  std::vector<double> omegas = reference::rotary_inv_freq(rotary_width, h.convention, length);
  if (!h.convention.rope_2d) return omegas;
  std::vector<double> by_pair(omegas.size());
  for (int i = 0; i < static_cast<int>(omegas.size()); ++i) {
    by_pair[static_cast<size_t>(i)] =
        omegas[static_cast<size_t>(reference::rotary_frequency_index(i, rotary_width, h.convention))];
  }
  return by_pair;
}

// The length the hypothesis compares with its original context for a probe.
Position probe_length(const Hypothesis& h, const Probe& p) {
  if (h.fixed_length) return *h.fixed_length;
  if (!p.axes.empty()) return reference::rotary_length(p.axes, p.seq_len, h.convention);
  return reference::rotary_length(p.positions, p.seq_len, h.convention);
}

// The hypothesis's answer to a probe; none where it is undefined (a rotary
// width beyond d, an odd one, a scaling that refuses the width).
std::optional<Matrix> predict(const Hypothesis& h, const Probe& p, Dtype values) {
  if (h.identity) return p.x;
  const int r = h.convention.rotary_width(p.dim);
  if (r < 0 || r > p.dim || r % 2 != 0) return std::nullopt;
  if (r == 0) return p.x;  // a fraction that rounds to no pair rotates nothing
  const Position length = probe_length(h, p);
  try {
    if (h.angles && p.axes.empty()) {
      SubjectInfo info = rope_info("hypothesis", cpp_spec("hypothesis"), h.convention, values, h.angles, {}, "");
      RopeSubject simulated(info);
      return ask::rotate(simulated, p.positions, p.x, length);
    }
    auto omegas = inv_freq(h, r, length);
    if (h.frequencies) {
      for (double& w : omegas) w = round_to(*h.frequencies, w);
    }
    const double m = reference::rotary_magnitude(h.convention);
    const Layout layout = h.convention.layout;
    Matrix out = p.x;
    for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
      for (int i = 0; i < r / 2; ++i) {
        const auto axis = h.axis_feed[static_cast<size_t>(reference::rotary_axis(i, r, h.convention))];
        const double t = h.row_index ? static_cast<double>(row) : used_position(h, p.at(axis, row));
        const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
        double theta = h.sign * t * omegas[static_cast<size_t>(i)];
        if (h.swapped) theta = std::numbers::pi / 2 - theta;
        const double c = std::cos(theta), s = std::sin(theta), xa = p.x(row, a), xb = p.x(row, b);
        out(row, reference::rotary_output_first_column(i, r, layout)) = m * (xa * c - xb * s);
        out(row, reference::rotary_output_second_column(i, r, layout)) = m * (xa * s + xb * c);
      }
    }
    return out;
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

// A decoupled head (DeepSeek MLA): its first nope features against x (they
// pass through, the bound of a copy), its last rope features scored as a
// probe of their own under the slice's convention (reference::rope_slice).
Score score_decoupled(const Hypothesis& h, const std::vector<Probe>& probes, const Precision& precision, Dtype values) {
  const int rope = *h.convention.qk_rope_head_dim, nope = h.convention.qk_nope_head_dim.value_or(0);
  Hypothesis turned = h;
  turned.convention = reference::rope_slice(h.convention);
  Score out;
  std::vector<Probe> slices;
  for (const auto& p : probes) {
    if (p.dim != rope + nope) {
      out.usable = false;
      out.ratio = INFINITY;
      out.where = fmt::format("undefined at d = {} (a head of {} + {} features)", p.dim + p.offset, nope, rope);
      return out;
    }
    for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
      for (int j = 0; j < nope; ++j) {
        const double q = detail::ratio(std::fabs(p.answer(row, j) - (h.nope_zeroed ? 0.0 : p.x(row, j))),
                                       precision.bound(5, 0, std::fabs(p.x(row, j))));
        if (q > out.ratio) {
          out.ratio = q;
          out.where = fmt::format("d = {}, position {}, column {} (passed through)", p.dim + p.offset, p.at(0, row),
                                  j + p.offset);
        }
      }
    }
    Probe slice = p;
    slice.dim = rope;
    slice.offset = p.offset + nope;
    slice.x = p.x.rightCols(rope);
    slice.answer = p.answer.rightCols(rope);
    slices.push_back(std::move(slice));
  }
  Score rotated = score(turned, slices, precision, values);
  return rotated.ratio > out.ratio || !rotated.usable ? rotated : out;
}

}  // namespace

Score score(const Hypothesis& h, const std::vector<Probe>& probes, const Precision& precision, Dtype values) {
  if (h.convention.decoupled() && !h.identity) return score_decoupled(h, probes, precision, values);
  Score out;
  for (const auto& p : probes) {
    const auto predicted = predict(h, p, values);
    if (!predicted) {
      out.usable = false;
      out.ratio = INFINITY;
      out.where = fmt::format("undefined at d = {}", p.dim);
      return out;
    }
    const int r = h.identity ? 0 : h.convention.rotary_width(p.dim);
    std::vector<double> omegas;
    if (r >= 2) {
      try {
        omegas = inv_freq(h, r, probe_length(h, p));
      } catch (const Refusal&) {
      }
    }
    const double m = r >= 2 ? reference::rotary_magnitude(h.convention) : 1.0;
    const Layout layout = h.convention.layout;
    const int roundings = frequency_work(h.convention);
    // Each output column's pair size and angle work (pass-through columns: their own size, no angle).
    for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
      std::vector<double> size(static_cast<size_t>(p.dim)), work(static_cast<size_t>(p.dim), 0.0);
      std::vector<Position> where(static_cast<size_t>(p.dim), p.at(0, row));
      for (int j = 0; j < p.dim; ++j) size[static_cast<size_t>(j)] = std::fabs(p.x(row, j));
      if (!omegas.empty()) {
        for (int i = 0; i < r / 2; ++i) {
          const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
          const double s = m * (std::fabs(p.x(row, a)) + std::fabs(p.x(row, b)));
          const Position t = p.at(h.axis_feed[static_cast<size_t>(reference::rotary_axis(i, r, h.convention))], row);
          const double w = angle_work(used_position(h, t), omegas[static_cast<size_t>(i)], roundings);
          for (int column : {reference::rotary_output_first_column(i, r, layout),
                             reference::rotary_output_second_column(i, r, layout)}) {
            size[static_cast<size_t>(column)] = s;
            work[static_cast<size_t>(column)] = w;
            where[static_cast<size_t>(column)] = t;
          }
        }
      }
      for (int j = 0; j < p.dim; ++j) {
        const double s = size[static_cast<size_t>(j)];
        const double bound = precision.bound(5, work[static_cast<size_t>(j)], s);
        if (s > 0 && bound >= 2 * s) continue;  // not resolvable at this precision
        const double q = detail::ratio(std::fabs(p.answer(row, j) - (*predicted)(row, j)), bound);
        if (q > out.ratio) {
          out.ratio = q;
          out.where = fmt::format("d = {}, position {}, column {}", p.dim + p.offset, where[static_cast<size_t>(j)],
                                  j + p.offset);
        }
      }
    }
  }
  return out;
}

std::optional<Probe> ask(Subject& subject, int dim, Positions positions, Position seq_len, std::uint64_t seed,
                         std::vector<Positions> axes) {
  Probe p;
  p.dim = dim;
  p.positions = std::move(positions);
  p.axes = std::move(axes);
  p.seq_len = seq_len;
  p.x = detail::probe_vectors(static_cast<Eigen::Index>(p.positions.size()), dim, seed);
  try {
    p.answer = p.axes.empty() ? ask::rotate(subject, p.positions, p.x, seq_len) : ask::rotate_axes(subject, p.axes, p.x, seq_len);
  } catch (const Refusal&) {
    return std::nullopt;
  }
  if (p.answer.rows() != p.x.rows() || p.answer.cols() != p.x.cols()) return std::nullopt;
  return p;
}

Reading read(const Probe& p, Layout layout, const Precision& precision) {
  Reading out;
  int first = p.dim, last = -1;
  for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
    if (p.positions[static_cast<size_t>(row)] == 0) continue;
    for (int j = 0; j < p.dim; ++j) {
      const double tol = precision.bound(5, 0, std::fabs(p.x(row, j)) + 1e-300);
      if (std::fabs(p.answer(row, j) - p.x(row, j)) > tol) {
        first = std::min(first, j);
        last = std::max(last, j);
      }
    }
  }
  out.rotated = std::min(p.dim, 2 * ((last + 2) / 2));
  out.unchanged_before = last < 0 ? 0 : 2 * (first / 2);
  const int r = out.rotated;
  if (r < 2) return out;
  double in = 0, rotated = 0;
  for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
    in += p.x.row(row).head(r).squaredNorm();
    rotated += p.answer.row(row).head(r).squaredNorm();
  }
  out.magnitude = in > 0 ? std::sqrt(rotated / in) : 1;
  const auto one = std::find(p.positions.begin(), p.positions.end(), Position{1});
  if (one == p.positions.end()) return out;
  const auto row = static_cast<Eigen::Index>(one - p.positions.begin());
  for (int i = 0; i < r / 2; ++i) {
    const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
    const double xa = p.x(row, a), xb = p.x(row, b);
    const double oa = p.answer(row, reference::rotary_output_first_column(i, r, layout));
    const double ob = p.answer(row, reference::rotary_output_second_column(i, r, layout));
    out.omegas.push_back(std::fabs(std::atan2(xa * ob - xb * oa, xa * oa + xb * ob)));
  }
  return out;
}

std::vector<double> read_frequencies(const Probe& p, Layout layout, int r) {
  std::vector<double> out;
  const auto one = std::find(p.positions.begin(), p.positions.end(), Position{1});
  const auto far = std::max_element(p.positions.begin(), p.positions.end());
  if (one == p.positions.end() || far == p.positions.end() || *far < 2) return out;
  const auto row1 = static_cast<Eigen::Index>(one - p.positions.begin());
  const auto rowT = static_cast<Eigen::Index>(far - p.positions.begin());
  const double T = static_cast<double>(*far);
  for (int i = 0; i < r / 2; ++i) {
    const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
    const int oa = reference::rotary_output_first_column(i, r, layout);
    const int ob = reference::rotary_output_second_column(i, r, layout);
    auto angle = [&](Eigen::Index row) {
      const double xa = p.x(row, a), xb = p.x(row, b), ya = p.answer(row, oa), yb = p.answer(row, ob);
      return std::atan2(xa * yb - xb * ya, xa * ya + xb * yb);
    };
    const double w1 = angle(row1), thetaT = angle(rowT);
    const double turns = std::round((T * w1 - thetaT) / (2 * std::numbers::pi));
    out.push_back(std::fabs((thetaT + 2 * std::numbers::pi * turns) / T));
  }
  return out;
}

std::optional<double> fit_base(const std::vector<double>& omegas, double omega_0) {
  const int r = 2 * static_cast<int>(omegas.size());
  double num = 0, den = 0;
  for (size_t i = 1; i < omegas.size(); ++i) {
    const double w = omegas[i] / omega_0;
    if (!(w > 1e-7) || w >= 1) continue;
    const double e = 2.0 * static_cast<double>(i) / r;
    num += -e * std::log(w);
    den += e * e;
  }
  if (den == 0) return std::nullopt;
  return std::exp(num / den);
}

}  // namespace pecheck::identify::rotary

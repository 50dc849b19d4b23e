// Which rotary convention (or which defect) explains a subject's rotations:
// hypotheses predicted in double, each judged over re-queried answers with
// the error model of rope.reference_values (rope/common.h), the best named.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>

#include "angle_error.h"
#include "identify/internal.h"
#include "identify/llama3.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/rope.h"
#include "rope/common.h"

namespace pecheck::identify {

namespace {

using detail::Precision;
using detail::Score;
using detail::rank;
using detail::span_of;
using detail::widest;

struct Probe {
  int dim = 0;
  Positions positions;            // axis t's (every axis's, when `axes` is empty)
  std::vector<Positions> axes;    // multi-axis probes: one list per axis
  Matrix x, answer;
  Position seq_len = 1;
  // Row k's position on axis a (its one position for a one-axis probe).
  Position at(size_t axis, Eigen::Index row) const {
    const Positions& p = axes.empty() ? positions : axes[std::min(axis, axes.size() - 1)];
    return p[static_cast<size_t>(row)];
  }
};

// What a rotary might compute: a convention, with at most one defect.
struct Hypothesis {
  std::string words;             // how the diagnosis names it
  RotateConvention convention;
  double sign = 1;               // −1: the inverse rotation R_{−t}
  Position offset = 0;           // rotates as position t + offset
  bool swapped = false;          // sine and cosine exchanged
  bool identity = false;         // returns x
  std::optional<Dtype> angles;   // angles computed in this precision
  std::optional<Dtype> frequencies;  // ω_i rounded to this precision before the product t·ω_i
  bool row_index = false;        // rotates row r as position r, whatever position it is given
  std::optional<Position> fixed_length;  // a dynamic scaling (or LongRoPE's switch) frozen at this length
  std::array<size_t, 3> axis_feed = {0, 1, 2};  // the given axis each declared axis turns by (sections swapped)
  std::optional<Llama3Slip> llama3;  // Llama 3 scaling computed with this slip (identify/llama3.h)
  Position cache_rows = 0;           // a cos/sin table of this many rows, indexed past its end (0: none)
  bool cache_wraps = false;          // ... modulo its length (else clamped to its last row)
  bool declarable = true;        // a convention a hello can declare (not a defect)
};

bool is_scaled(const RotateConvention& c) { return c.scaling.type != ScalingType::none; }

// The position a hypothesis rotates row t by: offset, then a too-short cos/sin cache's index.
double used_position(const Hypothesis& h, Position t) {
  t += h.offset;
  if (h.cache_rows > 0 && t >= h.cache_rows) t = h.cache_wraps ? t % h.cache_rows : h.cache_rows - 1;
  return static_cast<double>(t);
}

// The hypothesis's frequencies: the convention's, or its Llama 3 scaling with a slip.
std::vector<double> inv_freq(const Hypothesis& h, int rotary_width, std::optional<Position> length) {
  if (h.llama3) return llama3_inv_freq(rotary_width, h.convention, length, *h.llama3);
  return reference::rotary_inv_freq(rotary_width, h.convention, length);
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

// The worst entry of the probes against the hypothesis, relative to the bound
// of one computed rotation at the subject's precision (rope/common.h); pairs
// whose bound reaches their largest possible error are not judged.
Score score(const Hypothesis& h, const std::vector<Probe>& probes, const Precision& precision, Dtype values) {
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
          out.where = fmt::format("d = {}, position {}, column {}", p.dim, where[static_cast<size_t>(j)], j);
        }
      }
    }
  }
  return out;
}

// Asks the subject; a width it refuses is left out.
std::optional<Probe> ask(Subject& subject, int dim, Positions positions, Position seq_len, std::uint64_t seed,
                         std::vector<Positions> axes = {}) {
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

// What the answers themselves say, read under a layout: the width that
// rotates (the columns that change), each pair's angle at position 1, and the
// factor on the rotated block's norm.
struct Reading {
  int rotated = 0;                 // features that change (even), 0: none
  std::vector<double> omegas;      // |angle per position| of each pair of the changed block
  double magnitude = 1;
};

Reading read(const Probe& p, Layout layout, const Precision& precision) {
  Reading out;
  int last = -1;
  for (Eigen::Index row = 0; row < p.x.rows(); ++row) {
    if (p.positions[static_cast<size_t>(row)] == 0) continue;
    for (int j = 0; j < p.dim; ++j) {
      const double tol = precision.bound(5, 0, std::fabs(p.x(row, j)) + 1e-300);
      if (std::fabs(p.answer(row, j) - p.x(row, j)) > tol) last = std::max(last, j);
    }
  }
  out.rotated = std::min(p.dim, 2 * ((last + 2) / 2));
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

// Each pair's frequency read at the probe's largest position, unwrapped with
// the reading at position 1 (a far position resolves a slow pair's angle).
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

// The base whose schedule base^(−2i/r) best fits the pairs' angles (least
// squares on ln ω_i = −(2i/r)·ln base); none when too few pairs resolve.
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

// The pairs whose angle per position differs from the declared one, in words.
std::string frequency_report(const Probe& p, const RotateConvention& declared, const Precision& precision) {
  const Reading reading = read(p, declared.layout, precision);
  if (reading.omegas.empty()) return {};
  std::vector<double> want;
  try {
    want = reference::rotary_inv_freq(reference::rotary_block(p.dim, declared), declared, p.seq_len);
  } catch (const Refusal&) {
    return {};
  }
  int first = -1, last = -1, worst = -1;
  double worst_factor = 1;
  for (size_t i = 0; i < std::min(want.size(), reading.omegas.size()); ++i) {
    const double tol = precision.bound(5, angle_work(1, want[i], frequency_work(declared)), 1);
    if (std::fabs(reading.omegas[i] - want[i]) <= tol) continue;
    if (first < 0) first = static_cast<int>(i);
    last = static_cast<int>(i);
    const double f = std::max(reading.omegas[i] / want[i], want[i] / std::max(reading.omegas[i], 1e-300));
    if (f > worst_factor) {
      worst_factor = f;
      worst = static_cast<int>(i);
    }
  }
  if (first < 0) return {};
  return fmt::format("; at d = {} pairs {}–{} turn at other frequencies than declared (pair {}: {:.4g} per position, "
                     "declared {:.4g})",
                     p.dim, first, last, worst, reading.omegas[static_cast<size_t>(worst)],
                     want[static_cast<size_t>(worst)]);
}

// The usual mistakes of the 2024–2026 schemes (CLAIMS.md §9), each one change
// to a declared LongRoPE, YaRN with mscale, freq_factors or multi-axis convention.
template <class With>
void scheme_suspects(const RotateConvention& declared, With&& with) {
  const RopeScaling& s = declared.scaling;
  if (s.type == ScalingType::longrope) {
    with("uses the short factors where the long ones belong (past the original length too)",
         [](Hypothesis& h) { h.convention.scaling.long_factor = h.convention.scaling.short_factor; });
    with("uses the long factors where the short ones belong (below the original length too: a factor set chosen "
         "by the allocated context, llama.cpp #24823)",
         [](Hypothesis& h) { h.convention.scaling.short_factor = h.convention.scaling.long_factor; });
    with("picks the factor set by the request's positions, not the sequence's length (vLLM #27414)",
         [](Hypothesis& h) { h.convention.scaling.factor_switch = FactorSwitch::position; });
    with("leaves LongRoPE's attention factor off the cos/sin tables",
         [](Hypothesis& h) { h.convention.scaling.attention_factor = 1.0; });
  }
  if (s.type == ScalingType::yarn && (s.mscale || s.mscale_all_dim || s.attention_factor)) {
    with(fmt::format("ignores mscale/mscale_all_dim: the tables carry 0.1·ln F + 1 = {:.4g} (vLLM #48621)",
                     0.1 * std::log(s.factor) + 1),
         [](Hypothesis& h) {
           h.convention.scaling.mscale.reset();
           h.convention.scaling.mscale_all_dim.reset();
           h.convention.scaling.attention_factor.reset();
         });
    if (s.mscale_all_dim) {
      with("carries g(F, mscale_all_dim) on the rotary instead of the ratio g(F, mscale)/g(F, mscale_all_dim) "
           "(kekzl/imp PR #880)",
           [](Hypothesis& h) {
             h.convention.scaling.attention_factor = 0.1 * *h.convention.scaling.mscale_all_dim *
                                                         std::log(h.convention.scaling.factor) + 1;
           });
    }
  }
  if (s.type == ScalingType::yarn && !s.mscale && !s.mscale_all_dim && !s.attention_factor && s.factor > 1) {
    with(fmt::format("leaves YaRN's attention factor off the cos/sin tables (0.1·ln F + 1 = {:.4g}: the rotated "
                     "vectors' norms are 1× the input's, not {:.4g}×)",
                     0.1 * std::log(s.factor) + 1, 0.1 * std::log(s.factor) + 1),
         [](Hypothesis& h) { h.convention.scaling.attention_factor = 1.0; });
  }
  if (s.type == ScalingType::yarn) {
    with(s.truncate ? "leaves YaRN's correction range unrounded (truncate: false, as GPT-OSS declares) where the "
                      "floor/ceil of truncate: true is declared"
                    : "rounds YaRN's correction range (floor/ceil, truncate: true) where truncate: false is declared "
                      "(GPT-OSS)",
         [](Hypothesis& h) { h.convention.scaling.truncate = !h.convention.scaling.truncate; });
  }
  if (s.type == ScalingType::llama3 && s.original_max_position > 1) {
    for (const auto& [words, slip] : llama3_slips(s)) {
      with(words, [slip](Hypothesis& h) {
        const bool whole = slip.boundary == std::floor(slip.boundary);
        if (!slip.bands_swapped && !slip.smooth_reversed && whole) {  // another declarable L
          h.convention.scaling.original_max_position = static_cast<Position>(slip.boundary);
        } else {
          h.llama3 = slip;
          h.declarable = false;
        }
      });
    }
  }
  if (!declared.freq_factors.empty()) {
    with("ignores freq_factors", [](Hypothesis& h) { h.convention.freq_factors.clear(); });
    with("multiplies ω by freq_factors instead of dividing it", [](Hypothesis& h) {
      for (double& f : h.convention.freq_factors) f = 1 / f;
    });
  }
  if (declared.multi_axis()) {
    with("turns every pair by the t position (the h and w streams ignored)",
         [](Hypothesis& h) { h.axis_feed = {0, 0, 0}; h.declarable = false; });
    with("has the h and w sections swapped", [](Hypothesis& h) { h.axis_feed = {0, 2, 1}; h.declarable = false; });
    // The section sizes in another order (mrope_section [24, 16, 24] for [16, 24, 24]), each axis its own stream.
    std::vector<int> sizes(declared.mrope_section.begin(), declared.mrope_section.end());
    std::sort(sizes.begin(), sizes.end());
    do {
      if (std::equal(sizes.begin(), sizes.end(), declared.mrope_section.begin(), declared.mrope_section.end())) continue;
      with(fmt::format("has the section sizes [{}] where mrope_section [{}] is declared (the sizes in another order, "
                       "each still turning by its own axis)",
                       fmt::join(sizes, ", "), fmt::join(declared.mrope_section, ", ")),
           [sizes](Hypothesis& h) { h.convention.mrope_section.assign(sizes.begin(), sizes.end()); });
    } while (std::next_permutation(sizes.begin(), sizes.end()));
    with(declared.mrope_interleaved ? "assigns the axes in sections, declared interleaved (Qwen2-VL's mrope on a "
                                      "Qwen3-VL model)"
                                    : "assigns the axes interleaved, declared in sections",
         [](Hypothesis& h) { h.convention.mrope_interleaved = !h.convention.mrope_interleaved; });
  }
}

// The usual suspects for a subject declaring `declared`: each one change.
std::vector<Hypothesis> suspects(const RotateConvention& declared, const SubjectInfo& info,
                                 const std::vector<Probe>& probes, const Precision& precision) {
  std::vector<Hypothesis> out;
  auto with = [&](std::string words, auto change) {
    Hypothesis h;
    h.words = std::move(words);
    h.convention = declared;
    change(h);
    out.push_back(std::move(h));
  };
  const std::string base = fmt::format("{:g}", declared.base);
  with("the declared convention", [](Hypothesis&) {});
  with("returns x unchanged (the identity map)", [](Hypothesis& h) { h.identity = true; h.declarable = false; });
  with("rotates by −t·ω_i: the inverse rotation R_{−t} (rotate_half as cat(x2, −x1), or conjugated freqs_cis)",
       [](Hypothesis& h) { h.sign = -1; h.declarable = false; });
  for (Layout other : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
    const Layout own = declared.layout == Layout::unspecified ? Layout::interleaved : declared.layout;
    if (other == own) continue;
    if (other == Layout::interleave_then_halves && own != Layout::halves) continue;  // only its own twin's mistake
    with(fmt::format("matches the {} layout, declared {}", name(other), name(own)),
         [other](Hypothesis& h) { h.convention.layout = other; });
  }
  scheme_suspects(declared, with);
  for (double b : detail::kCommonBases) {
    if (detail::near(b, declared.base, 1e-9)) continue;
    with(fmt::format("matches base {:g}, not {}", b, base), [b](Hypothesis& h) { h.convention.base = b; });
  }
  with(fmt::format("matches the exponent i/d (ω_i = {}^(−i/d), i.e. base {:g} with 2i/d), not 2i/d", base,
                   std::sqrt(declared.base)),
       [&](Hypothesis& h) { h.convention.base = std::sqrt(declared.base); });
  with("sine and cosine exchanged", [](Hypothesis& h) { h.swapped = true; h.declarable = false; });
  for (Position k : {1, -1, 2, -2}) {
    with(fmt::format("matches positions offset by {:+d} (rotates as position t {} {})", k, k > 0 ? "+" : "−",
                     std::abs(k)),
         [k](Hypothesis& h) { h.offset = k; h.declarable = false; });
  }
  // A cos/sin cache built for fewer positions than asked, indexed past its end (the table never grown).
  Position top = 0;
  for (const auto& p : probes) {
    for (Position t : p.positions) top = std::max(top, t);
  }
  for (Position rows : {Position{2048}, Position{4096}, Position{8192}}) {
    if (top < rows) continue;
    with(fmt::format("reads a cos/sin cache of {} rows and clamps every later position to its last row (a table "
                     "built for max_position_embeddings {} and never grown)", rows, rows),
         [rows](Hypothesis& h) { h.cache_rows = rows; h.declarable = false; });
    with(fmt::format("reads a cos/sin cache of {} rows modulo its length (position t as t mod {}: a table built for "
                     "{} positions and never grown)", rows, rows, rows),
         [rows](Hypothesis& h) { h.cache_rows = rows; h.cache_wraps = true; h.declarable = false; });
  }
  with("ignores the positions it is given: rotates row r as position r (its angles come from arange(n), as when a "
       "module drops the position_ids it is passed)",
       [](Hypothesis& h) { h.row_index = true; h.declarable = false; });
  for (Dtype lower : {Dtype::bfloat16, Dtype::float16}) {
    if (unit_roundoff(lower) < unit_roundoff(info.angles_dtype())) continue;
    // The frequencies alone rounded (an inv_freq buffer cast by module.to(dtype)), the product exact:
    // a defect of its own, apart from angles computed in that precision throughout.
    with(fmt::format("its frequencies are rounded to {} before the product t·ω_i (an inv_freq buffer cast to {}, as "
                     "module.to({}) does), declared {} angles: keep inv_freq in float32",
                     name(lower), name(lower), name(lower), name(info.angles_dtype())),
         [lower](Hypothesis& h) { h.frequencies = lower; h.declarable = false; });
    if (unit_roundoff(lower) == unit_roundoff(info.angles_dtype())) continue;
    with(fmt::format("matches angles computed in {}, declared {}", name(lower), name(info.angles_dtype())),
         [lower](Hypothesis& h) { h.angles = lower; h.declarable = false; });
  }
  // Scaling: none where one is declared; a dynamic base frozen at a length.
  if (is_scaled(declared)) {
    with(fmt::format("matches no scaling (plain RoPE), declared {} scaling", name(declared.scaling.type)),
         [](Hypothesis& h) { h.convention.scaling = {}; });
  }
  if (declared.scaling.type == ScalingType::dynamic_ntk) {
    const auto frozen = static_cast<Position>(static_cast<double>(declared.scaling.original_max_position) *
                                              declared.scaling.factor);
    with(fmt::format("the base does not follow the sequence length: matches dynamic NTK's base at length {} for "
                     "every request",
                     frozen),
         [frozen](Hypothesis& h) { h.fixed_length = frozen; h.declarable = false; });
  }
  // Fits read from the widest probe: the rotated width, a fitted base, linear scaling.
  const Probe& wide = widest(probes);
  const Reading reading = read(wide, declared.layout, precision);
  int declared_r = 0;
  try {
    declared_r = reference::rotary_block(wide.dim, declared);
  } catch (const Refusal&) {
  }
  if (reading.rotated < declared_r && reading.rotated > 0) {
    const int r = reading.rotated;
    with(fmt::format("rotates only the first {} of {} features (rotary_fraction {:g}), declared {}", r, wide.dim,
                     static_cast<double>(r) / wide.dim, declared_r == wide.dim ? "all of them" : fmt::format("{}", declared_r)),
         [&](Hypothesis& h) { h.convention.rotary_dim.reset(); h.convention.rotary_fraction = static_cast<double>(r) / wide.dim; });
    with(fmt::format("rotates only the first {} of {} features (rotary_dim {}), declared {}", r, wide.dim, r,
                     declared_r == wide.dim ? "all of them" : fmt::format("{}", declared_r)),
         [&](Hypothesis& h) { h.convention.rotary_fraction.reset(); h.convention.rotary_dim = r; });
  }
  if (declared.rotary_dim || declared.rotary_fraction) {
    with(fmt::format("rotates all the features, declared {}", declared.rotary_dim ? fmt::format("rotary_dim {}", *declared.rotary_dim)
                                                                           : fmt::format("rotary_fraction {:g}", *declared.rotary_fraction)),
         [](Hypothesis& h) { h.convention.rotary_dim.reset(); h.convention.rotary_fraction.reset(); });
  }
  if (!reading.omegas.empty() && reading.omegas[0] > 0) {
    if (auto b = fit_base(reading.omegas, reading.omegas[0])) {
      const double fitted = detail::round_significant(*b, 4);
      bool known = detail::near(fitted, declared.base, 2e-3) || detail::near(fitted, std::sqrt(declared.base), 2e-3);
      for (double c : detail::kCommonBases) known = known || detail::near(fitted, c, 2e-3);
      if (!known) {
        with(fmt::format("matches base {:g} (fitted to the answers), not {}", fitted, base),
             [fitted](Hypothesis& h) { h.convention.base = fitted; });
      }
    }
    if (!is_scaled(declared) && reading.omegas[0] < 0.999) {
      const double factor = detail::round_significant(1 / reading.omegas[0], 4);
      with(fmt::format("matches linear scaling by {:g} (positions t/{:g}), declared none", factor, factor),
           [factor](Hypothesis& h) { h.convention.scaling.type = ScalingType::linear; h.convention.scaling.factor = factor; });
    }
  }
  return out;
}

// The probe set of a diagnosis: the witness's width and the valid width
// nearest 128, at the witness's positions and a few more.
std::vector<Probe> diagnosis_probes(Subject& subject, int dim, const Positions& witness, Position seq_len) {
  Positions ts = {0, 1, 2, 3, 7, 100, 1000};
  Position top = 1000;
  for (Position t : witness) top = std::max(top, t);
  for (Position t : witness) ts.push_back(t);
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  const Position length = std::max(seq_len, top + 1);
  std::vector<int> dims = {dim};
  const auto valid = rope::valid_dims(subject.info());
  if (!valid.empty()) {
    const int wide = *std::min_element(valid.begin(), valid.end(), [](int a, int b) {
      return std::abs(a - 128) < std::abs(b - 128);
    });
    if (wide != dim) dims.push_back(wide);
  }
  std::vector<Probe> out;
  std::uint64_t seed = 0xd1a9;
  for (int d : dims) {
    if (auto p = ask(subject, d, ts, length, seed++)) out.push_back(std::move(*p));
  }
  const RotateConvention declared = rope::declared(subject.info());
  // LongRoPE: a sequence on each side of the original length, the early positions in both.
  if (declared.scaling.type == ScalingType::longrope) {
    const Position L = declared.scaling.original_max_position;
    Positions early;
    for (Position t : ts) {
      if (t < L) early.push_back(t);
    }
    if (!early.empty()) {
      for (Position at : {L, std::max(length, L + 1)}) {
        if (auto p = ask(subject, dim, early, at, seed++)) out.push_back(std::move(*p));
      }
    }
  }
  // Multi-axis: the three streams apart (t as drawn, h and w reordered).
  if (declared.multi_axis()) {
    std::vector<Positions> axes(declared.mrope_section.size(), ts);
    for (size_t a = 1; a < axes.size(); ++a) {
      std::reverse(axes[a].begin(), axes[a].end());
      if (a == 2) std::rotate(axes[a].begin(), axes[a].begin() + 1, axes[a].end());
    }
    if (auto p = ask(subject, dim, ts, length, seed++, axes)) out.push_back(std::move(*p));
  }
  return out;
}

// Whether sine and cosine turn at the same frequency: each probed pair's
// columns rotated alone (one row, x = e_a or e_b, at position 1): the column
// keeps cos θ_c, its partner gets sin θ_s. One angle per pair (a rotation at
// any precision, by any wrong angle or length) keeps cos² + sin² the same for
// every pair; cos and sin tables built from different frequencies do not. A
// pair that leaks into other columns (a layout slip) is no evidence: "" then,
// as when all agree.
std::string sin_cos_mismatch(Subject& subject, int dim, const RotateConvention& declared, const Precision& precision) {
  int r = 0;
  std::vector<double> want;
  try {
    r = reference::rotary_block(dim, declared);
    want = reference::rotary_inv_freq(r, declared, 2);
  } catch (const Refusal&) {
    return {};
  }
  if (r < 4) return {};
  std::vector<int> pairs = {0, 1, 2, 3, r / 8, r / 4, r / 2 - 1};
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  const double m = reference::rotary_magnitude(declared);
  struct Read {
    int pair, column, partner;
    double c, s, length, bound;
  };
  std::vector<Read> reads;
  for (int i : pairs) {
    if (i < 0 || i >= r / 2) continue;
    const int a = reference::rotary_first_column(i, r, declared.layout);
    const int b = reference::rotary_second_column(i, r, declared.layout);
    const double bound = precision.bound(5, angle_work(1, want[static_cast<size_t>(i)], frequency_work(declared)), m);
    for (int column : {a, b}) {
      Matrix x = Matrix::Zero(1, dim);
      x(0, column) = 1;
      Matrix y;
      try {
        y = ask::rotate(subject, {1}, x, Position{2});
      } catch (const Refusal&) {
        return {};
      }
      if (y.rows() != 1 || y.cols() != dim) return {};
      const int partner = column == a ? b : a;
      for (int j = 0; j < dim; ++j) {  // only the pair's own two columns may change
        if (j != column && j != partner && std::fabs(y(0, j)) > bound) return {};
      }
      reads.push_back({i, column, partner, y(0, column), y(0, partner), std::hypot(y(0, column), y(0, partner)), bound});
    }
  }
  if (reads.size() < 2) return {};
  const auto [low, high] = std::minmax_element(reads.begin(), reads.end(),
                                               [](const Read& p, const Read& q) { return p.length < q.length; });
  if (!(high->length - low->length > 4 * (high->bound + low->bound))) return {};
  // The pair furthest from the others' length names it.
  const Read& odd = std::fabs(high->length - m) > std::fabs(low->length - m) ? *high : *low;
  const double tc = std::acos(std::clamp(odd.c / m, -1.0, 1.0)), ts = std::asin(std::clamp(std::fabs(odd.s) / m, 0.0, 1.0));
  return fmt::format("sine and cosine turn at different frequencies: at position 1, pair {} rotates column {} by "
                     "cos({:.6g}) and sin({:.6g}) (declared ω = {:.6g}), so cos² + sin² = {:.6g}, not {:g} as for "
                     "other pairs — the cos and sin tables are built from different frequencies (e.g. one from "
                     "cat(freqs, freqs), the other from repeat_interleave, or from another index)",
                     odd.pair, odd.column, tc, ts, want[static_cast<size_t>(odd.pair)], odd.length * odd.length / (m * m),
                     1.0);
}

// Where frequencies rounded to `lower` show most: the pair whose ω moves
// most, at a position where t·Δω reaches about π (at most kFarthest), measured
// on the subject against the declared rotation: the margin by which the
// defect fails, not the shrunk witness's, which sits at the edge by design.
std::string rounding_margin(Subject& subject, int dim, const RotateConvention& declared, Dtype lower,
                            const Precision& precision) {
  constexpr Position kFarthest = 8192;
  int r = 0;
  std::vector<double> omegas;
  try {
    r = reference::rotary_block(dim, declared);
    omegas = reference::rotary_inv_freq(r, declared, kFarthest + 1);
  } catch (const Refusal&) {
    return {};
  }
  int worst = -1;
  double delta = 0;
  for (size_t i = 0; i < omegas.size(); ++i) {
    const double d = std::fabs(round_to(lower, omegas[i]) - omegas[i]);
    if (d > delta) {
      delta = d;
      worst = static_cast<int>(i);
    }
  }
  if (worst < 0) return {};
  const auto t = static_cast<Position>(std::min<double>(kFarthest, std::max(1.0, std::floor(std::numbers::pi / delta))));
  const int a = reference::rotary_first_column(worst, r, declared.layout);
  const int b = reference::rotary_second_column(worst, r, declared.layout);
  Matrix x = Matrix::Zero(1, dim);
  x(0, a) = 1;
  Matrix y;
  try {
    y = ask::rotate(subject, {t}, x, t + 1);
  } catch (const Refusal&) {
    return {};
  }
  if (y.rows() != 1 || y.cols() != dim) return {};
  const double w = omegas[static_cast<size_t>(worst)], m = reference::rotary_magnitude(declared);
  const double theta = static_cast<double>(t) * w;
  const double error = std::max(std::fabs(y(0, a) - m * std::cos(theta)), std::fabs(y(0, b) - m * std::sin(theta)));
  const double bound = precision.bound(5, angle_work(static_cast<double>(t), w, frequency_work(declared)), m);
  if (!(bound < 2 * m)) return {};  // no position here that a correct subject's precision resolves
  return fmt::format("; where it shows most, pair {} (ω = {:.6g} rounds to {:.6g}) at position {}, the answer is off "
                     "by {:.3g}, {:.3g}× its bound {:.3g}",
                     worst, w, round_to(lower, w), t, error, error / bound, bound);
}

// What scheme_suspects tried for the declared scheme, in the words "no usual suspect" lists.
std::string scheme_ruled_out(const RotateConvention& declared) {
  std::string out;
  switch (declared.scaling.type) {
    case ScalingType::llama3: out += ", Llama 3's bands swapped, its smoothing reversed, its boundary L"; break;
    case ScalingType::yarn: out += ", YaRN's attention factor, its range rounded or not"; break;
    case ScalingType::longrope: out += ", LongRoPE's factor sets and their switch"; break;
    default: break;
  }
  if (!declared.freq_factors.empty()) out += ", freq_factors ignored or multiplied";
  if (declared.multi_axis()) out += ", the axes' sections";
  return out;
}

}  // namespace

std::string diagnose_rotary(Subject& subject, const BoundModel& model, int dim, const Positions& positions,
                            Position seq_len) {
  const SubjectInfo& info = subject.info();
  const RotateConvention declared = rope::declared(info);
  const auto probes = diagnosis_probes(subject, dim, positions, seq_len);
  if (probes.empty()) return "no diagnosis: the subject refused every probe";
  const Precision precision = Precision::of(model);
  // Measured directly, before any hypothesis: no convention has sine and cosine at different frequencies.
  if (std::string mismatch = sin_cos_mismatch(subject, widest(probes).dim, declared, precision); !mismatch.empty()) {
    return mismatch;
  }
  const auto ranked = rank(suspects(declared, info, probes, precision),
                           [&](const Hypothesis& h) { return score(h, probes, precision, info.dtype); });
  const std::string probed = span_of(probes);
  double declared_ratio = INFINITY;
  for (const auto& r : ranked) {
    if (r.hypothesis.words == "the declared convention") declared_ratio = r.score.ratio;
  }
  const auto& best = ranked.front();
  if (best.hypothesis.words == "the declared convention" && best.score.ratio <= 1) {
    // The probes fit; the witness's own request, asked again, tells whether its difference repeats there
    // (an answer that depends on the request's length or company) or not at all (on earlier requests).
    if (auto own = ask(subject, dim, positions, seq_len, 0x0e11)) {
      const Score again = score(best.hypothesis, {*own}, precision, info.dtype);
      if (again.ratio > 1) {
        return fmt::format("the declared convention ({}) explains the re-queried answers ({}) but not the witness's "
                           "own request asked again (seq_len {}): off by {:.3g}× its bound at {} — the answer depends "
                           "on the request's length, on the positions asked with it or on earlier requests (a cos/sin "
                           "cache sized, clamped or grown by another length?)",
                           describe(declared), probed, seq_len, again.ratio, again.where);
      }
    }
    return fmt::format("the declared convention ({}) explains the re-queried answers ({}) and the witness's own "
                       "request asked again: the witness's difference did not repeat (an answer that depends on "
                       "earlier requests?)",
                       describe(declared), probed);
  }
  if (best.score.ratio <= 1) {
    const std::string margin = best.hypothesis.frequencies
                                   ? rounding_margin(subject, widest(probes).dim, declared, *best.hypothesis.frequencies,
                                                     precision)
                                   : std::string();
    return fmt::format("{} — it explains every re-queried answer ({}) within the error model (worst {:.2g} of its "
                       "bound; the declared {} is off by {:.3g}×){}",
                       best.hypothesis.words, probed, best.score.ratio, describe(declared), declared_ratio, margin);
  }
  return fmt::format("no usual suspect explains the answers ({}: ruled out base, exponent, layout, direction, rotary "
                     "width, scaling, position offset, a cos/sin cache too short, sine/cosine, angle precision, identity{}); "
                     "the closest, {}, is "
                     "off by {:.3g}× its bound at {}{}{}",
                     probed, scheme_ruled_out(declared), best.hypothesis.words, best.score.ratio, best.score.where,
                     frequency_report(widest(probes), declared, precision),
                     best.hypothesis.words == "the declared convention"
                         ? " — nothing fits better than what is declared: answers that depend on earlier requests (a "
                           "cos/sin cache grown or rebuilt by another length) read so; history_independence tells"
                         : "");
}

namespace {

// LongRoPE read off the answers: a rotation that changes with the length by
// a different divisor per pair. The factor lists are ω_i(10000)/ω read at a
// length on each side of the switch, the switch found by bisecting the length
// (the first length that turns like the longer probe is L + 1), the magnitude
// the measured one.
std::optional<RopeScaling> read_longrope(Subject& subject, const Probe& short_probe, const Probe& long_probe,
                                         Layout layout, const Precision& precision, double magnitude) {
  const int r = short_probe.dim;
  const auto w_short = read_frequencies(short_probe, layout, r), w_long = read_frequencies(long_probe, layout, r);
  if (w_short.empty() || w_long.size() != w_short.size()) return std::nullopt;
  RotateConvention plain;
  plain.base = 10000;
  const auto schedule = reference::rotary_inv_freq(r, plain, std::nullopt);
  RopeScaling s;
  s.type = ScalingType::longrope;
  for (size_t i = 0; i < schedule.size(); ++i) {
    if (!(w_short[i] > 0) || !(w_long[i] > 0)) return std::nullopt;
    s.short_factor.push_back(schedule[i] / w_short[i]);
    s.long_factor.push_back(schedule[i] / w_long[i]);
  }
  // The switch: bisect the length between the two probes on a small probe.
  const Positions at = {1, 2};
  const Matrix x = detail::probe_vectors(2, r, 0x5717);
  auto turns_long = [&](Position length) -> std::optional<bool> {
    try {
      const Matrix shorter = ask::rotate(subject, at, x, short_probe.seq_len);
      const Matrix here = ask::rotate(subject, at, x, length);
      const double tol = precision.bound(10, 10, 2 * max_abs(x));
      return (here - shorter).cwiseAbs().maxCoeff() > tol;
    } catch (const Refusal&) {
      return std::nullopt;
    }
  };
  Position lo = short_probe.seq_len, hi = long_probe.seq_len;
  while (hi - lo > 1) {
    const Position mid = lo + (hi - lo) / 2;
    const auto longer = turns_long(mid);
    if (!longer) return std::nullopt;
    (*longer ? hi : lo) = mid;
  }
  s.original_max_position = lo;
  if (std::fabs(magnitude - 1) > 1e-6) s.attention_factor = magnitude;
  return s;
}

// Probes that move one axis at a time (position 1 on it, 0 on the others),
// at the width of `like`.
std::vector<Probe> axis_probes(Subject& subject, const Probe& like) {
  std::vector<Probe> out;
  const size_t count = subject.info().rotate.mrope_section.size();
  for (size_t a = 0; a < count; ++a) {
    std::vector<Positions> axes(count, Positions{0, 0});
    axes[a] = {1, 3};
    if (auto p = ask(subject, like.dim, {1, 3}, 4, 0xa7e5 + a, axes)) out.push_back(std::move(*p));
  }
  return out;
}

// Which axis each pair of `convention`'s rotated block turns by, as sections
// (and whether interleaved); none when the pattern is neither. `seen` gets
// the pattern, one letter per pair.
std::optional<std::pair<std::vector<int>, bool>> read_axes(Subject& subject, const Probe& like,
                                                           const RotateConvention& convention,
                                                           const Precision& precision, std::string& seen) {
  const auto probes = axis_probes(subject, like);
  if (probes.size() != 3) return std::nullopt;
  int r = 0;
  try {
    r = reference::rotary_block(like.dim, convention);
  } catch (const Refusal&) {
    return std::nullopt;
  }
  std::vector<int> axis_of(static_cast<size_t>(r / 2), -1);
  for (size_t a = 0; a < probes.size(); ++a) {
    const Probe& p = probes[a];
    for (int i = 0; i < r / 2; ++i) {
      const int oa = reference::rotary_output_first_column(i, r, convention.layout);
      const int ob = reference::rotary_output_second_column(i, r, convention.layout);
      const int ia = reference::rotary_first_column(i, r, convention.layout);
      const int ib = reference::rotary_second_column(i, r, convention.layout);
      const double moved = std::fabs(p.answer(0, oa) - p.x(0, ia)) + std::fabs(p.answer(0, ob) - p.x(0, ib));
      const double tol = precision.bound(10, 10, std::fabs(p.x(0, ia)) + std::fabs(p.x(0, ib)));
      if (moved > tol) axis_of[static_cast<size_t>(i)] = static_cast<int>(a);
    }
  }
  seen.clear();
  for (int a : axis_of) seen += a < 0 ? '.' : "thw"[a];
  std::vector<int> counts(3, 0);
  for (int a : axis_of) {
    if (a < 0) return std::nullopt;
    ++counts[static_cast<size_t>(a)];
  }
  for (const bool interleaved : {false, true}) {
    RotateConvention c = convention;
    c.mrope_section = counts;
    c.mrope_interleaved = interleaved;
    bool same = true;
    for (int i = 0; i < r / 2 && same; ++i) same = reference::rotary_axis(i, r, c) == axis_of[static_cast<size_t>(i)];
    if (same) return std::make_pair(counts, interleaved);
  }
  return std::nullopt;
}

}  // namespace

namespace detail {

// pecheck identify for a rotary: layouts × widths × bases × scalings fitted
// to the answers at two widths, and the best named.
Identification identify_rotary(Subject& subject, const Precision& precision, Position max_position) {
  Identification out;
  out.op = "rotate";
  Positions ts;
  for (Position t : {0, 1, 2, 3, 7, 31, 100, 257, 1000, 2049}) {
    if (t <= max_position) ts.push_back(t);
  }
  const Position length = ts.back() + 1;
  std::vector<Probe> probes;
  std::uint64_t seed = 0x1de4;
  // Per-pair lists a subject declares (LongRoPE's, freq_factors, mrope sections) fix its width.
  std::vector<int> widths = {128, 64, 256, 96, 32, 16, 8, 4, 2};
  if (const int pairs = subject.info().rotate.fixed_pairs(); pairs > 0) widths.insert(widths.begin(), 2 * pairs);
  for (int d : widths) {
    if (probes.size() == 2) break;
    if (!probes.empty() && probes.front().dim == d) continue;
    if (auto p = ask(subject, d, ts, length, seed++)) probes.push_back(std::move(*p));
  }
  if (probes.empty()) {
    out.convention = "nothing: the subject refused every probe width (2 to 256)";
    return out;
  }
  // A second length at the widest width: does the rotation depend on it?
  const Probe& wide = widest(probes);
  const Position long_length = std::max<Position>(4 * length, 16384);
  std::optional<Probe> longer;
  try {
    Probe p = wide;
    p.seq_len = long_length;
    p.answer = ask::rotate(subject, p.positions, p.x, long_length);
    // Only a rotation that changes with the length is a dynamic scaling.
    const double tol = precision.bound(5, max_angle_work(static_cast<double>(ts.back()), {1.0}, 3),
                                       2 * max_abs(p.x));
    if (p.answer.rows() == wide.answer.rows() && p.answer.cols() == wide.answer.cols() &&
        (p.answer - wide.answer).cwiseAbs().maxCoeff() > tol) {
      longer = std::move(p);
    }
  } catch (const Refusal&) {
  }
  const Dtype values = subject.info().dtype;

  std::vector<Hypothesis> hypotheses;
  for (Layout layout : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
    RotateConvention base_convention;
    base_convention.layout = layout;
    const Reading reading = read(wide, layout, precision);
    // The full width, and the width the answers change over (it may read
    // short where slow pairs hide under a 16-bit precision: scored, not trusted).
    std::vector<RotateConvention> widths = {base_convention};
    if (reading.rotated > 0 && reading.rotated < wide.dim) {
      RotateConvention fixed = base_convention, fraction = base_convention;
      fixed.rotary_dim = reading.rotated;
      fraction.rotary_fraction = static_cast<double>(reading.rotated) / wide.dim;
      widths.push_back(fixed);
      widths.push_back(fraction);
    }
    std::vector<double> bases(std::begin(kCommonBases), std::end(kCommonBases));
    if (!reading.omegas.empty() && reading.omegas[0] > 0) {
      if (auto b = fit_base(reading.omegas, reading.omegas[0])) bases.push_back(round_significant(*b, 4));
    }
    std::vector<RopeScaling> scalings = {RopeScaling{}};
    if (!reading.omegas.empty() && reading.omegas[0] > 0 && reading.omegas[0] < 0.999) {
      RopeScaling linear;
      linear.type = ScalingType::linear;
      linear.factor = round_significant(1 / reading.omegas[0], 4);
      scalings.push_back(linear);
    }
    for (double factor : {8.0, 32.0}) {  // Llama 3.1's and 3.2's published configurations
      RopeScaling llama3;
      llama3.type = ScalingType::llama3;
      llama3.factor = factor;
      llama3.original_max_position = 8192;
      scalings.push_back(llama3);
    }
    if (reading.magnitude > 1.0001) {  // YaRN: m = 0.1·ln F + 1
      const double factor = round_significant(std::exp((reading.magnitude - 1) / 0.1), 3);
      for (Position original : {2048, 4096, 8192, 32768}) {
        RopeScaling yarn;
        yarn.type = ScalingType::yarn;
        yarn.factor = factor;
        yarn.original_max_position = original;
        scalings.push_back(yarn);
      }
    }
    if (std::fabs(reading.magnitude - 1) <= 1e-3) {
      // YaRN as DeepSeek declares it: mscale = mscale_all_dim, magnitude 1 (DeepSeek-V2/V3, Kimi K2).
      for (double factor : {4.0, 16.0, 32.0, 40.0}) {
        for (Position original : {4096, 8192}) {
          RopeScaling yarn;
          yarn.type = ScalingType::yarn;
          yarn.factor = factor;
          yarn.original_max_position = original;
          yarn.mscale = yarn.mscale_all_dim = 1.0;
          scalings.push_back(yarn);
        }
      }
    }
    if (longer) {
      if (auto longrope = read_longrope(subject, wide, *longer, layout, precision, reading.magnitude)) {
        scalings.push_back(*longrope);
      }
      for (Position original : {512, 1024, 2048, 4096, 8192}) {
        for (double factor : {2.0, 4.0, 8.0}) {
          RopeScaling dynamic;
          dynamic.type = ScalingType::dynamic_ntk;
          dynamic.factor = factor;
          dynamic.original_max_position = original;
          scalings.push_back(dynamic);
        }
      }
    }
    for (const auto& w : widths) {
      for (double b : bases) {
        for (const auto& s : scalings) {
          Hypothesis h;
          h.convention = w;
          h.convention.base = b;
          h.convention.scaling = s;
          h.words = describe(h.convention);
          hypotheses.push_back(h);
          if (s.type == ScalingType::none && &w == &widths.front()) {
            // Positions ignored (arange(n) in their place), at any base: a defect that reads as a slow base.
            Hypothesis ignored = h;
            ignored.row_index = true;
            ignored.declarable = false;
            ignored.words = "positions ignored: row r rotated as position r (arange(n)) under " + h.words +
                            " (a defect, not a convention)";
            hypotheses.push_back(ignored);
          }
          if (s.type == ScalingType::none && b == 10000 && &w == &widths.front()) {
            Hypothesis inverse = h, identity = h;
            inverse.sign = -1;
            inverse.declarable = false;
            inverse.words = "the inverse rotation R_{−t} of " + h.words + " (a defect, not a convention)";
            identity.identity = true;
            identity.declarable = false;
            identity.words = "the identity map: x returned unchanged (a defect, not a convention)";
            hypotheses.push_back(inverse);
            hypotheses.push_back(identity);
          }
        }
      }
    }
  }
  std::vector<Probe> all = probes;
  if (longer) all.push_back(*longer);
  auto ranked = rank(hypotheses, [&](const Hypothesis& h) { return score(h, all, precision, values); });
  // Multi-axis positions (a subject that declares mrope_section takes them):
  // which axis each pair turns by, read from probes that move one axis at a
  // time, and the best convention re-judged with them.
  if (subject.info().rotate.multi_axis()) {
    std::string seen;
    Hypothesis& h = ranked.front().hypothesis;
    if (auto axes = read_axes(subject, wide, h.convention, precision, seen)) {
      h.convention.mrope_section = axes->first;
      h.convention.mrope_interleaved = axes->second;
      h.words = describe(h.convention);
      std::vector<Probe> with_axes = all;
      for (auto& p : axis_probes(subject, wide)) with_axes.push_back(std::move(p));
      ranked.front().score = score(h, with_axes, precision, values);
    } else {
      h.words += fmt::format(" — its pairs turn by the axes {}, neither sections nor Qwen3-VL's interleaving", seen);
      h.declarable = false;
      ranked.front().score.ratio = INFINITY;
    }
  }
  const auto& best = ranked.front();
  out.ratio = best.score.ratio;
  out.convention = best.hypothesis.words;
  out.fits = best.score.ratio <= 1 && best.hypothesis.declarable;
  if (best.hypothesis.declarable) out.params = rotate_params(best.hypothesis.convention);
  std::string runner_up;
  for (const auto& r : ranked) {
    if (r.hypothesis.words != best.hypothesis.words) {
      runner_up = fmt::format("; next best: {} ({:.3g}× its bound)", r.hypothesis.words, r.score.ratio);
      break;
    }
  }
  out.details = fmt::format("{} hypotheses over {} (lengths {} and {}); worst entry of the best {:.3g}× its bound at {}{}",
                            hypotheses.size(), span_of(all), length, long_length, best.score.ratio,
                            best.score.where.empty() ? "—" : best.score.where, runner_up);
  return out;
}

}  // namespace detail

}  // namespace pecheck::identify

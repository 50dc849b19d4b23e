// Which sinusoidal convention (or which defect) explains an encoder's
// answers: hypotheses from reference/sinusoidal.h, each judged over
// re-queried encodings with the error model of pe.reference_values (pe/common.h),
// the best named.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "angle_error.h"
#include "identify/internal.h"
#include "identify/search.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pe/common.h"

namespace pecheck::identify {

namespace {

using detail::Precision;
using detail::Score;
using detail::rank;
using detail::span_of;
using detail::widest;

struct Probe {
  int dim = 0;
  Positions positions;
  Position seq_len = 1;
  Matrix answer;
};

struct Hypothesis {
  std::string words;
  EncodeConvention convention;
  bool swapped = false;          // cosine where the sine belongs
  Positions zero_rows;           // positions encoded as all zeros
  std::optional<Dtype> angles;   // angles computed in this precision
  bool declarable = true;
};

std::optional<Matrix> predict(const Hypothesis& h, const Probe& p, Dtype values) {
  try {
    Matrix out;
    if (h.angles) {
      const auto row = sinusoidal_row(h.convention, values, *h.angles);
      out.resize(static_cast<Eigen::Index>(p.positions.size()), p.dim);
      for (size_t k = 0; k < p.positions.size(); ++k) {
        row(p.dim, p.positions[k], p.seq_len, out.row(static_cast<Eigen::Index>(k)).data());
      }
    } else {
      out = reference::sinusoidal(p.dim, p.positions, h.convention);
    }
    if (h.swapped) {
      for (int i = 0; i < p.dim / 2; ++i) {
        out.col(reference::sin_index(i, p.dim, h.convention.layout))
            .swap(out.col(reference::cos_index(i, p.dim, h.convention.layout)));
      }
    }
    for (size_t k = 0; k < p.positions.size(); ++k) {
      if (std::find(h.zero_rows.begin(), h.zero_rows.end(), p.positions[k]) != h.zero_rows.end()) {
        out.row(static_cast<Eigen::Index>(k)).setZero();
      }
    }
    return out;
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

// Each component against the bound of one computed encoding (pe/common.h):
// values 2·A, angles angle_work(t + offset, ω_i)·A; components a correct
// encoder's precision cannot resolve (bound ≥ 2A) are not judged.
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
    const double a = std::fabs(h.convention.amplitude);
    for (int i = 0; i < (p.dim + 1) / 2; ++i) {
      const double w = reference::frequency(i, p.dim, h.convention);
      for (int col : {reference::sin_index(i, p.dim, h.convention.layout),
                      reference::cos_index(i, p.dim, h.convention.layout)}) {
        if (col >= p.dim) continue;
        for (Eigen::Index row = 0; row < p.answer.rows(); ++row) {
          const Position t = p.positions[static_cast<size_t>(row)] + h.convention.position_offset;
          const double bound = precision.bound(2, angle_work(static_cast<double>(t), w), a);
          if (bound >= 2 * a) continue;
          const double q = detail::ratio(std::fabs(p.answer(row, col) - (*predicted)(row, col)), bound);
          if (q > out.ratio) {
            out.ratio = q;
            out.where = fmt::format("d = {}, position {}, component {}", p.dim, p.positions[static_cast<size_t>(row)],
                                    col);
          }
        }
      }
    }
  }
  return out;
}

std::optional<Probe> ask(Subject& subject, int dim, Positions positions, Position seq_len) {
  Probe p{dim, std::move(positions), seq_len, {}};
  try {
    p.answer = ask::encode(subject, dim, p.positions, seq_len);
  } catch (const Refusal&) {
    return std::nullopt;
  }
  if (p.answer.rows() != static_cast<Eigen::Index>(p.positions.size()) || p.answer.cols() != dim) return std::nullopt;
  return p;
}

// What the answers say under a layout: the amplitude, the angle of pair 0 at
// position 0 (an offset, since ω_0 = 1 in both schedules), and each pair's
// angle step from position 0 to 1 (its frequency).
struct Reading {
  double amplitude = 1;
  double offset = 0;
  std::vector<double> omegas;
  Positions zero_rows;
};

Reading read(const Probe& p, Layout layout) {
  Reading out;
  double sum = 0;
  for (Eigen::Index row = 0; row < p.answer.rows(); ++row) {
    const double norm2 = p.answer.row(row).squaredNorm();
    if (norm2 == 0) out.zero_rows.push_back(p.positions[static_cast<size_t>(row)]);
    sum += norm2;
  }
  const auto rows = static_cast<double>(p.answer.rows() - static_cast<Eigen::Index>(out.zero_rows.size()));
  if (rows > 0) out.amplitude = std::sqrt(2 * sum / (rows * (p.dim - p.dim % 2)));
  const auto at = [&p](Position t) -> std::optional<Eigen::Index> {
    const auto it = std::find(p.positions.begin(), p.positions.end(), t);
    if (it == p.positions.end()) return std::nullopt;
    return static_cast<Eigen::Index>(it - p.positions.begin());
  };
  const auto zero = at(0), one = at(1);
  if (!zero || !one || p.dim % 2 != 0) return out;
  auto angle = [&](Eigen::Index row, int i) {
    return std::atan2(p.answer(row, reference::sin_index(i, p.dim, layout)),
                      p.answer(row, reference::cos_index(i, p.dim, layout)));
  };
  out.offset = angle(*zero, 0);
  for (int i = 0; i < p.dim / 2; ++i) {
    double step = angle(*one, i) - angle(*zero, i);
    step = std::remainder(step, 2 * std::numbers::pi);
    out.omegas.push_back(std::fabs(step));
  }
  return out;
}

// The base that best fits the pairs' frequencies under a schedule.
std::optional<double> fit_base(const std::vector<double>& omegas, Schedule schedule) {
  const int h = static_cast<int>(omegas.size()), d = 2 * h;
  if (schedule == Schedule::i_over_h_minus_1 && h < 2) return std::nullopt;
  double num = 0, den = 0;
  for (int i = 1; i < h; ++i) {
    const double w = omegas[static_cast<size_t>(i)];
    if (!(w > 1e-7) || w >= 1) continue;
    const double e = schedule == Schedule::two_i_over_d ? 2.0 * i / d : static_cast<double>(i) / (h - 1);
    num += -e * std::log(w);
    den += e * e;
  }
  if (den == 0) return std::nullopt;
  return std::exp(num / den);
}

std::vector<Hypothesis> suspects(const EncodeConvention& declared, const SubjectInfo& info,
                                 const std::vector<Probe>& probes) {
  detail::Suspects<Hypothesis> with(declared);
  const std::string base = fmt::format("{:g}", declared.base);
  with(std::string(detail::kDeclared), [](Hypothesis&) {});
  for (double b : detail::kCommonBases) {
    if (detail::near(b, declared.base, 1e-9)) continue;
    with(fmt::format("matches base {:g}, not {}", b, base), [b](Hypothesis& h) { h.convention.base = b; });
  }
  const Schedule other = declared.schedule == Schedule::two_i_over_d ? Schedule::i_over_h_minus_1
                                                                     : Schedule::two_i_over_d;
  with(fmt::format("matches schedule {} (ω_i = {}^(−{})), declared {}", name(other), base,
                   other == Schedule::two_i_over_d ? "2i/d" : "i/(h−1)", name(declared.schedule)),
       [other](Hypothesis& h) { h.convention.schedule = other; });
  for (Position k : {1, -1, 2, -2}) {
    const Position o = declared.position_offset + k;
    with(fmt::format("matches positions offset by {} (position_offset {}), declared {}", o, o,
                     declared.position_offset),
         [o](Hypothesis& h) { h.convention.position_offset = o; });
  }
  if (declared.position_offset != 0) {
    with(fmt::format("matches positions not offset (position_offset 0: the offset never added), declared {}",
                     declared.position_offset),
         [](Hypothesis& h) { h.convention.position_offset = 0; });
  }
  const Layout layout = declared.layout == Layout::halves ? Layout::halves : Layout::interleaved;
  const Layout swapped_layout = layout == Layout::halves ? Layout::interleaved : Layout::halves;
  with(fmt::format("matches the {} layout, declared {}", name(swapped_layout), name(layout)),
       [swapped_layout](Hypothesis& h) { h.convention.layout = swapped_layout; });
  with("sine and cosine exchanged (the cosine where the sine belongs)",
       [](Hypothesis& h) { h.swapped = true; h.declarable = false; });
  for (Dtype lower : {Dtype::bfloat16, Dtype::float16}) {
    if (unit_roundoff(lower) <= unit_roundoff(info.angles_dtype())) continue;
    with(fmt::format("matches angles computed in {}, declared {}", name(lower), name(info.angles_dtype())),
         [lower](Hypothesis& h) { h.angles = lower; h.declarable = false; });
  }
  const Probe& wide = widest(probes);
  const Reading reading = read(wide, layout);
  if (!reading.zero_rows.empty()) {
    std::string list;
    for (Position t : reading.zero_rows) list += fmt::format("{}{}", list.empty() ? "" : ", ", t);
    with(fmt::format("position{} {} encode{} as all zeros (a zeroed padding row read as a position: fairseq's "
                     "padding_idx row without the padding_idx + 1 offset)",
                     reading.zero_rows.size() > 1 ? "s" : "", list, reading.zero_rows.size() > 1 ? "" : "s"),
         [&](Hypothesis& h) { h.zero_rows = reading.zero_rows; h.declarable = false; });
  }
  if (!detail::near(reading.amplitude, declared.amplitude, 1e-3) && reading.amplitude > 0) {
    const double a = detail::round_significant(reading.amplitude, 4);
    with(fmt::format("matches amplitude {:g}, declared {:g}", a, declared.amplitude),
         [a](Hypothesis& h) { h.convention.amplitude = a; });
  }
  for (Schedule s : {declared.schedule, other}) {
    if (auto b = fit_base(reading.omegas, s)) {
      const double fitted = detail::round_significant(*b, 4);
      bool known = false;
      for (double c : detail::kCommonBases) known = known || detail::near(fitted, c, 2e-3);
      if (known && s == declared.schedule) continue;
      with(fmt::format("matches base {:g} with schedule {} (fitted to the answers), declared base {} with {}", fitted,
                       name(s), base, name(declared.schedule)),
           [fitted, s](Hypothesis& h) { h.convention.base = fitted; h.convention.schedule = s; });
    }
  }
  return std::move(with).take();
}

std::vector<Probe> diagnosis_probes(Subject& subject, int dim, const Positions& witness, Position seq_len,
                                    const EncodeConvention& declared) {
  const auto [ts, length] = detail::around_witness({0, 1, 2, 3, 5, 10, 100, 1000}, witness, seq_len);
  std::vector<Probe> out;
  for (int d : {dim, 64}) {
    if (!out.empty() && d == out.front().dim) continue;
    try {
      reference::frequency(0, d, declared);  // a width the declared convention defines
    } catch (const Refusal&) {
      continue;
    }
    if (auto p = ask(subject, d, ts, length)) out.push_back(std::move(*p));
  }
  return out;
}

// Whether each pair's sine and cosine turn at the same frequency: at
// position 0 both hold (0, A) whatever their frequencies; an encoder whose
// pair shares one angle keeps sin² + cos² = A² at every position, at any
// precision, offset or wrong base; sine and cosine tables built from
// different frequencies (the cosine's exponent from the column index 2i+1
// instead of 2i) do not, at position 1 already. A pairing that the other
// layout explains is a layout slip, not this: "" then, as when all agree.
std::string sin_cos_mismatch(const std::vector<Probe>& probes, const EncodeConvention& declared,
                             const Precision& precision) {
  // The pair whose length moves most from position 0 to 1 under `layout`, and by how much over its bound.
  struct Worst {
    int pair = -1;
    double excess = 0, sin = 0, cos = 0, amplitude = 0;
    const Probe* probe = nullptr;
  };
  auto worst_under = [&](Layout layout) {
    Worst out;
    for (const auto& p : probes) {
      const auto zero = std::find(p.positions.begin(), p.positions.end(), Position{0});
      const auto one = std::find(p.positions.begin(), p.positions.end(), Position{1});
      if (zero == p.positions.end() || one == p.positions.end() || p.dim % 2 != 0 || p.dim < 4) continue;
      const auto r0 = static_cast<Eigen::Index>(zero - p.positions.begin());
      const auto r1 = static_cast<Eigen::Index>(one - p.positions.begin());
      // Position 1 encoded as all zeros is a padding row read as a position
      // (its own suspect), not two tables at different frequencies.
      if (p.answer.row(r1).cwiseAbs().maxCoeff() == 0) continue;
      for (int i = 0; i < p.dim / 2; ++i) {
        const int sc = reference::sin_index(i, p.dim, layout), cc = reference::cos_index(i, p.dim, layout);
        const double a = std::hypot(p.answer(r0, sc), p.answer(r0, cc));
        const double length = std::hypot(p.answer(r1, sc), p.answer(r1, cc));
        double w = 1;
        try {
          w = reference::frequency(i, p.dim, declared);
        } catch (const Refusal&) {
        }
        const double bound = 2 * precision.bound(2, angle_work(1 + static_cast<double>(declared.position_offset), w),
                                                 std::max(a, 1e-300));
        const double excess = std::fabs(length - a) / bound;
        if (excess > out.excess) out = {i, excess, p.answer(r1, sc), p.answer(r1, cc), a, &p};
      }
    }
    return out;
  };
  const Worst declared_reading = worst_under(declared.layout);
  if (declared_reading.pair < 0 || declared_reading.excess <= 4) return {};
  const Layout other = declared.layout == Layout::halves ? Layout::interleaved : Layout::halves;
  if (worst_under(other).excess <= 4) return {};
  const Worst& w = declared_reading;
  const double a = w.amplitude;
  const double ts = std::asin(std::clamp(std::fabs(w.sin) / a, 0.0, 1.0)), tc = std::acos(std::clamp(w.cos / a, -1.0, 1.0));
  double omega = 0;
  try {
    omega = reference::frequency(w.pair, w.probe->dim, declared);
  } catch (const Refusal&) {
  }
  // ω = base^(−e/d): the exponent e each angle reads as (0 for ω = 1).
  auto exponent = [&](double theta) {
    return theta > 0 ? std::max(0.0, -std::log(theta) / std::log(declared.base) * w.probe->dim) + 0.0 : 0.0;
  };
  return fmt::format("sine and cosine turn at different frequencies: at position 1, pair {} (components {} and {}) "
                     "holds sin({:.6g}) and cos({:.6g}), so sin² + cos² = {:.6g}·A², not A² (declared ω = {:.6g}) — "
                     "the sine's frequency reads as base^(−{:.3g}/d), the cosine's as base^(−{:.3g}/d) at d = {}: "
                     "the cosine's exponent taken from another index than the sine's (e.g. the column 2i+1 instead of "
                     "2i)",
                     w.pair, reference::sin_index(w.pair, w.probe->dim, declared.layout),
                     reference::cos_index(w.pair, w.probe->dim, declared.layout), ts, tc,
                     (w.sin * w.sin + w.cos * w.cos) / (a * a), omega, exponent(ts), exponent(tc), w.probe->dim);
}

// The encoder conventions pecheck identify tries, read off the widest probe
// under each layout: the common bases and the fitted one, both schedules,
// offsets 0 to 2 and the fitted one, amplitude 1 and the measured one.
std::vector<Hypothesis> conventions(const Probe& wide) {
  std::vector<Hypothesis> hypotheses;
  for (Layout layout : {Layout::interleaved, Layout::halves}) {
    const Reading reading = read(wide, layout);
    std::vector<Position> offsets = {0, 1, 2};
    const double fitted_offset = std::round(reading.offset);
    if (std::fabs(reading.offset - fitted_offset) < 1e-3 && fitted_offset > 2) {
      offsets.push_back(static_cast<Position>(fitted_offset));
    }
    std::vector<double> amplitudes = {1};
    if (!detail::near(reading.amplitude, 1, 1e-3)) amplitudes.push_back(detail::round_significant(reading.amplitude, 4));
    for (Schedule schedule : {Schedule::two_i_over_d, Schedule::i_over_h_minus_1}) {
      std::vector<double> bases(std::begin(detail::kCommonBases), std::end(detail::kCommonBases));
      if (auto b = fit_base(reading.omegas, schedule)) bases.push_back(detail::round_significant(*b, 4));
      for (double base : bases) {
        for (Position offset : offsets) {
          for (double amplitude : amplitudes) {
            Hypothesis h;
            h.convention = {base, schedule, offset, amplitude, layout};
            h.words = describe(h.convention);
            hypotheses.push_back(h);
            if (base == 10000 && offset == 0 && amplitude == 1) {
              Hypothesis swapped = h;
              swapped.swapped = true;
              swapped.declarable = false;
              swapped.words = describe(h.convention) + " with sine and cosine exchanged (a defect, not a convention)";
              hypotheses.push_back(swapped);
            }
          }
        }
      }
    }
  }
  return hypotheses;
}

// pecheck identify for an encoder (identify/search.h): probes at two widths,
// the conventions read off the widest, ranked.
struct EncoderIdentification {
  using Probe = identify::Probe;
  using Hypothesis = identify::Hypothesis;
  Subject& subject;
  const Precision& precision;
  Positions positions;

  std::string op() const { return "encode"; }
  std::vector<int> widths() const { return {64, 16, 128, 8, 4}; }
  std::string refused() const { return "nothing: the subject refused every probe width (4 to 128)"; }
  std::optional<Probe> ask(int d) { return identify::ask(subject, d, positions, positions.back() + 1); }
  std::vector<Probe> judged(const std::vector<Probe>& probes) { return probes; }
  std::vector<Hypothesis> hypotheses(const std::vector<Probe>& probes) { return conventions(widest(probes)); }
  Score score(const Hypothesis& h, const std::vector<Probe>& probes) const {
    return identify::score(h, probes, precision, subject.info().dtype);
  }
  void refine(std::vector<detail::Ranked<Hypothesis>>&, const std::vector<Probe>&) {}
  json params(const Hypothesis& h) const { return encode_params(h.convention); }
  std::string probed(const std::vector<Probe>& probes) const { return span_of(probes); }
};

// The diagnosis of a failed pe.reference_values (identify/search.h).
struct EncoderDiagnosis {
  using Hypothesis = identify::Hypothesis;
  Subject& subject;
  EncodeConvention convention;  // the declared one
  std::vector<Probe> probes;
  Precision precision;

  std::string measured() const { return sin_cos_mismatch(probes, convention, precision); }
  std::vector<Hypothesis> suspects() const { return identify::suspects(convention, subject.info(), probes); }
  Score score(const Hypothesis& h) const { return identify::score(h, probes, precision, subject.info().dtype); }
  std::string declared() const { return describe(convention); }
  std::optional<std::string> declared_first(const detail::Ranked<Hypothesis>&, const std::string& probed) const {
    return fmt::format("the declared convention ({}) explains the re-queried answers ({}): the witness's difference "
                       "did not repeat (an answer that depends on earlier requests?)",
                       declared(), probed);
  }
  std::string explained_tail(const Hypothesis&) const { return {}; }
  std::string ruled_out() const {
    return "base, schedule, offset, layout, amplitude, sine/cosine, angle precision, zeroed rows";
  }
  std::string unexplained_tail(const detail::Ranked<Hypothesis>&) const { return {}; }
};
static_assert(detail::IdentifySearch<EncoderIdentification> && detail::DiagnosisSearch<EncoderDiagnosis>);

}  // namespace

std::string diagnose_encoder(Subject& subject, const BoundModel& model, int dim, const Positions& positions,
                             Position seq_len) {
  const EncodeConvention declared = pe::declared(subject.info());
  EncoderDiagnosis search{subject, declared, diagnosis_probes(subject, dim, positions, seq_len, declared),
                          Precision::of(model)};
  return detail::diagnose_with(search);
}

namespace detail {

Identification identify_encoder(Subject& subject, const Precision& precision, Position max_position) {
  EncoderIdentification search{subject, precision, positions_up_to({0, 1, 2, 3, 5, 10, 100, 1000, 2049}, max_position)};
  return identify_with(search);
}

}  // namespace detail

}  // namespace pecheck::identify

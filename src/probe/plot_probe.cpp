#include "pecheck/probe/plot_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "pecheck/core/tolerance.h"
#include "pecheck/property/registry.h"
#include "pecheck/result/judge.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck {

namespace {

using Rows = std::function<Matrix(const Positions&, Position seq_len)>;

constexpr int kDims[] = {64, 32, 16, 8, 4, 2};
constexpr int kStepPositions = 64;  // the step size is averaged over t = 0..63

Positions range(Position n) {
  Positions p(static_cast<size_t>(n));
  for (Position t = 0; t < n; ++t) p[static_cast<size_t>(t)] = t;
  return p;
}

// 1 ≤ t ≤ limit, four per octave.
Positions log_grid(Position limit) {
  Positions out;
  for (int k = 0;; ++k) {
    const auto t = static_cast<Position>(std::llround(std::pow(2.0, k / 4.0)));
    if (t > limit) break;
    if (out.empty() || t != out.back()) out.push_back(t);
  }
  return out;
}

// Per dimension j, the RMS over t of p_{t+1}[j] − p_t[j].
std::vector<double> step_rms(const Matrix& p) {
  std::vector<double> out(static_cast<size_t>(p.cols()));
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    double s = 0;
    for (Eigen::Index t = 0; t + 1 < p.rows(); ++t) s += std::pow(p(t + 1, j) - p(t, j), 2);
    out[static_cast<size_t>(j)] = std::sqrt(s / static_cast<double>(p.rows() - 1));
  }
  return out;
}

std::vector<double> indices(size_t n) {
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i);
  return x;
}

Series resolution_line(const SubjectInfo& info, const std::vector<double>& x, double factor) {
  const double level = factor * unit_roundoff(info.dtype);
  return {fmt::format("{:g}·u({}) = {:.2g}", factor, name(info.dtype), level), x, std::vector<double>(x.size(), level),
          true};
}

// The claim's own comparison with the declared reference at each position of
// the grid: the error the verdict measures there, and the bound it judges that
// error by (the error model at the declared precision, growing with the
// angle t·ω) — the dashed line is what decides, not a stand-in for it.
std::optional<LinePlot> reference_plot(Subject& subject, bool rotary, int dim, const Positions& grid,
                                       const ErrorModel& model) {
  const std::string id = rotary ? "rope.reference_values" : "pe.reference_values";
  const PropertyDef* property = find_property(id);
  if (property == nullptr || !property->impl.remeasure) return std::nullopt;
  const BoundModel bounds(model, id, subject.info());
  const std::string vec = rotary ? "R_t·(1, …, 1)" : "p_t";
  LinePlot plot{fmt::format("{} against the declared reference (d = {})", vec, dim),
                fmt::format("The verdict's own comparison at each position ({}): the error it measures and, dashed, "
                            "the bound it judges that error by.",
                            id),
                "position t", "absolute error", true, true, {}};
  Series error{fmt::format("error of {}", id), {}, {}, false};
  Series bound{"its bound (what the verdict uses)", {}, {}, true};
  for (Position t : grid) {
    json inputs = rotary ? json{{"dim", dim}, {"positions", {t}}, {"seq_len", t + 1},
                                {"x", {std::vector<double>(static_cast<std::size_t>(dim), 1.0)}}}
                         : json{{"published", false}, {"dim", dim}, {"positions", {t}}, {"seq_len", t + 1}};
    try {
      const CaseJudgement judged = judge(property->impl.remeasure(subject, inputs, bounds), bounds, property->impl.checks);
      const JudgedCheck& c = judged.deciding();
      error.x.push_back(static_cast<double>(t));
      error.y.push_back(c.check.error);
      bound.x.push_back(static_cast<double>(t));
      bound.y.push_back(c.tolerance.bound);
    } catch (const Refusal&) {
      // a position the subject does not serve: a gap in the curve
    } catch (const std::logic_error&) {
      // nothing the claim could compare there (no resolvable pair): a gap too
    }
  }
  if (error.x.empty()) return std::nullopt;
  plot.series.push_back(std::move(error));
  plot.series.push_back(std::move(bound));
  return plot;
}

// What the plots of one subject share: its rows, its width, what it is.
struct Probed {
  const SubjectInfo& info;
  const Rows& rows;
  int dim;
  bool rotary;
  std::string vec;      // the vector plotted: "R_t q" or "p_t"
  bool has_reference;   // an encoder with a declared layout: the formula is plotted beside it
};

Heatmap gram_heatmap(const Probed& s) {
  const Matrix p = s.rows(range(kGramPositions), kGramPositions);
  return {fmt::format("Gram matrix {}·{} (d = {})", s.vec, s.rotary ? "R_s q" : "p_s", s.dim),
          s.rotary ? "Constant along every diagonal when (R_t q)·(R_s q) depends on s − t only (rope.relative_dot): "
                     "a Toeplitz band structure."
                   : "Constant along every diagonal (a Toeplitz band) when p_t·p_s depends on t − s only "
                     "(pe.offset_only_dot); a learned table or a broken encoder shows no such structure.",
          "position", p * p.transpose()};
}

// With a declared layout, per pair i: ‖Δ(pair i)‖ is the same for every t
// (2·sin(ω_i/2) for the formula); without one, per dimension j.
LinePlot step_plot(const Probed& s) {
  const Matrix walk = s.rows(range(kStepPositions + 1), kStepPositions + 1);
  const int dim = s.dim;
  const bool paired = s.info.layout != Layout::unspecified && dim % 2 == 0;
  auto per_pair = [&](const std::vector<double>& rms) {
    if (!paired) return rms;
    std::vector<double> out(static_cast<size_t>(dim / 2));
    for (int i = 0; i < dim / 2; ++i) {
      out[static_cast<size_t>(i)] = std::hypot(rms[static_cast<size_t>(reference::sin_index(i, dim, s.info.layout))],
                                               rms[static_cast<size_t>(reference::cos_index(i, dim, s.info.layout))]);
    }
    return out;
  };
  LinePlot step{fmt::format("Step size per {} (d = {})", paired ? "dimension pair" : "dimension", dim),
                "How far each component moves between neighbouring positions: the first dimensions change a lot, "
                "the last ones barely (pe.step_size).",
                paired ? "pair i" : "dimension j",
                paired ? fmt::format("‖Δ{} on pair i‖ (RMS over t)", s.vec) : fmt::format("|Δ{}[j]| (RMS over t)", s.vec),
                false, true, {}};
  const auto steps = per_pair(step_rms(walk));
  step.series.push_back({"measured", indices(steps.size()), steps, false});
  if (s.has_reference) {
    const auto ref =
        per_pair(step_rms(reference::sinusoidal(dim, range(kStepPositions + 1), s.info.layout, s.info.amplitude)));
    step.series.push_back({"reference formula", indices(ref.size()), ref, true});
  }
  return step;
}

// Error against position, on a log grid up to the context verified.
LinePlot error_plot(const Probed& s, const Positions& grid, double factor) {
  Positions asked = {0, 1};
  for (Position t : grid) {
    asked.push_back(t);
    asked.push_back(t + 1);
  }
  const Matrix q = s.rows(asked, grid.back() + 2);
  LinePlot error{"Error against position",
                 "Where a low-precision implementation stops being usable: the error of a structural property at "
                 "position t (and, with a declared layout, the distance from the formula), against the dtype's "
                 "resolution.",
                 "position t", "absolute error", true, true, {}};
  std::vector<double> x, shift, other;
  const double step0 = (q.row(1) - q.row(0)).norm();
  const double dot0 = q.row(0).dot(q.row(1)), norm_q = std::sqrt(static_cast<double>(s.dim));
  for (size_t k = 0; k < grid.size(); ++k) {
    const auto a = static_cast<Eigen::Index>(2 + 2 * k), b = a + 1;
    x.push_back(static_cast<double>(grid[k]));
    if (s.rotary) {
      shift.push_back(std::fabs(q.row(a).dot(q.row(b)) - dot0));
      other.push_back(std::fabs(q.row(a).norm() - norm_q));
    } else {
      shift.push_back(std::fabs((q.row(b) - q.row(a)).norm() - step0));
      if (s.has_reference) {
        const Matrix ref = reference::sinusoidal(s.dim, {grid[k]}, s.info.layout, s.info.amplitude);
        other.push_back((q.row(a) - ref.row(0)).cwiseAbs().maxCoeff());
      }
    }
  }
  error.series.push_back({s.rotary ? "relative dot: |R_t q·R_t+1 q − R_0 q·R_1 q|"
                                   : "step size: |‖p_t+1 − p_t‖ − ‖p_1 − p_0‖|",
                          x, shift, false});
  if (s.rotary) error.series.push_back({"norm: |‖R_t q‖ − ‖q‖|", x, other, false});
  else if (s.has_reference) error.series.push_back({"distance from the formula: max_j |p_t[j] − ref_t[j]|", x, other, false});
  error.series.push_back(resolution_line(s.info, x, factor));
  return error;
}

SubjectPlots probe(Subject& subject, bool rotary, const Rows& rows, int dim, Position max_position,
                   const ErrorModel& model) {
  const SubjectInfo& info = subject.info();
  const Probed probed{info, rows, dim, rotary, rotary ? "R_t q" : "p_t",
                      !rotary && info.layout != Layout::unspecified && dim % 2 == 0};
  SubjectPlots plots;
  plots.subject = format_spec(info.spec);
  plots.kind = rotary ? "rotary" : "encoder";
  plots.heatmaps.push_back(gram_heatmap(probed));
  plots.lines.push_back(step_plot(probed));
  const Positions grid = log_grid(std::max<Position>(max_position, 16));
  plots.lines.push_back(error_plot(probed, grid, model.factor));
  if (auto reference = reference_plot(subject, rotary, dim, grid, model)) plots.lines.push_back(std::move(*reference));
  return plots;
}

}  // namespace

std::optional<SubjectPlots> probe_plots(Subject& subject, Position max_position, const ErrorModel& model) {
  const SubjectInfo& info = subject.info();
  const bool rotary = !info.supports(Op::encode) && info.supports(Op::rotate);
  if (!info.supports(Op::encode) && !rotary) return std::nullopt;
  int dim = 0;
  auto rows_at = [&](int d) -> Rows {
    return [&subject, rotary, d](const Positions& p, Position n) {
      const auto count = static_cast<Eigen::Index>(p.size());
      Matrix m = rotary ? ask::rotate(subject, p, Matrix::Ones(count, d), std::nullopt) : ask::encode(subject, d, p, n);
      if (m.rows() != count || m.cols() != d) {
        throw std::runtime_error(fmt::format("the subject answered {}×{} for {}×{}", m.rows(), m.cols(), count, d));
      }
      return m;
    };
  };
  // A subject without plots still has its entry, saying why.
  auto no_plots = [&](std::string note) {
    std::optional<SubjectPlots> out(std::in_place);
    out->subject = format_spec(info.spec);
    out->kind = rotary ? "rotary" : "encoder";
    out->note = std::move(note);
    return out;
  };
  try {
    for (int d : kDims) {
      try {
        rows_at(d)({0, 1}, 2);
        dim = d;
        break;
      } catch (const Refusal&) {
      }
    }
    if (dim == 0) return no_plots("no plots: the subject refused every dimension the probe tried (64, 32, 16, 8, 4, 2)");
    return probe(subject, rotary, rows_at(dim), dim, max_position, model);
  } catch (const std::exception& e) {
    return no_plots(fmt::format("no plots: the probe stopped: {}", e.what()));
  }
}

namespace {

class PlotStep final : public FinishStep {
 public:
  void finish(Plan& plan, RunReport& report) override {
    for (auto& planned : plan.subjects) {
      if (!planned.subject) continue;
      // A spent time budget asks the subjects nothing more: report.html goes without plots.
      if (plan.options.deadline && std::chrono::steady_clock::now() >= *plan.options.deadline) return;
      const std::string spec = format_spec(planned.spec);
      const bool failed = std::any_of(report.results.begin(), report.results.end(), [&](const PropertyResult& r) {
        return r.subject == spec && r.subject_failure() != nullptr;
      });
      if (failed) continue;  // the harness stops talking to a subject that broke
      if (auto plots = probe_plots(*planned.subject, plan.options.max_position, plan.options.error_model)) {
        report.plots.push_back(std::move(*plots));
      }
    }
  }
};

}  // namespace

std::shared_ptr<FinishStep> plot_step() { return std::make_shared<PlotStep>(); }

}  // namespace pecheck

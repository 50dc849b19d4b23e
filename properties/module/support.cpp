#include "module/support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pecheck/gen/matrix.h"

namespace pecheck::module {

namespace {
constexpr double kStages = 12;      // stages of one transformer layer whose roundings add up
constexpr double kExpansion = 4;    // the MLP's hidden width over the model width
constexpr double kSequenceSums = 2; // sums over the sequence in one layer: softmax's normaliser, Σ p·v
constexpr int kWidths[] = {8, 16, 32, 64};
constexpr Position kSmallPositions = 40;  // past dynamic NTK's L = 16 of the built-ins, with room
// A recorded case holds what the ladder may send: a declared session of 4,100
// tokens (issue 36) up to the largest n pecheck sends (core/size_limits.h).
constexpr Eigen::Index kLargestRecorded = Eigen::Index{1} << 20;
}  // namespace

int declared_width(const SubjectInfo& subject) { return subject.forward ? subject.forward->width : 0; }

rc::Gen<int> width(const GenContext& ctx) {
  const int declared = declared_width(ctx.subject);
  if (declared > 0) return rc::gen::just(declared);
  const AxisLimits limits = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, kOp, Axis::width);
  std::vector<int> widths;
  for (int w : kWidths) {
    if (limits.allows(w)) widths.push_back(w);
  }
  // None of the usual widths declared (params.forward.shapes.d): the smallest it declares.
  if (widths.empty()) widths = small_sizes(ctx, kOp, Axis::width, 1, 64);
  return rc::gen::elementOf(std::move(widths));
}

rc::Gen<int> token_count(const GenContext& ctx, int lo, Op op) {
  return size_on(ctx, op, Axis::tokens, lo, kMaxTokens);
}

rc::Gen<Matrix> tokens(Eigen::Index n, int width) { return gen::matrix(n, width, -kRange, kRange); }

rc::Gen<Position> start(const GenContext& ctx, Position room) {
  const Position last = std::max<Position>(0, ctx.max_position - room);
  // A ladder case's long sequence starts where positions are small: its
  // axis is the sequence's length, not its positions (a learned table of
  // 4096 positions takes 256 tokens from 0, not from 9000).
  if (focused(ctx, Axis::tokens)) return rc::gen::inRange<Position>(0, std::min(last, kSmallPositions) + 1);
  return rc::gen::weightedOneOf<Position>({{3, rc::gen::inRange<Position>(0, std::min(last, kSmallPositions) + 1)},
                                           {1, rc::gen::inRange<Position>(0, last + 1)}});
}

Positions counting(Position from, Eigen::Index n) {
  Positions out(static_cast<size_t>(n));
  for (Eigen::Index r = 0; r < n; ++r) out[static_cast<size_t>(r)] = from + r;
  return out;
}

Batch forward_checked(Subject& subject, const Batch& x, const std::vector<Positions>& positions,
                      const BoolMatrix& padding) {
  Batch y = ask::forward(subject, x, positions, padding);
  if (y.size() != x.size()) {
    throw SubjectFailure(fmt::format("forward returned {} sequences for {}", y.size(), x.size()));
  }
  for (size_t b = 0; b < y.size(); ++b) {
    if (y[b].rows() != x[b].rows() || y[b].cols() != y.front().cols()) {
      throw SubjectFailure(fmt::format("forward returned a {}×{} sequence {} for {} tokens (sequence 0 is {} wide)",
                                       y[b].rows(), y[b].cols(), b, x[b].rows(), y.front().cols()));
    }
  }
  return y;
}

Vector decode_checked(Subject& subject, const std::string& session, const Vector& x, Position position) {
  Vector y = ask::decode(subject, session, x, position);
  if (y.size() == 0) throw SubjectFailure("decode returned an empty row");
  return y;
}

double spread(const Batch& a, const Batch& b) {
  double worst = 0;
  for (size_t s = 0; s < a.size() && s < b.size(); ++s) {
    if (a[s].rows() != b[s].rows() || a[s].cols() != b[s].cols()) return std::numeric_limits<double>::infinity();
    if (a[s].size() == 0) continue;
    const double d = (a[s] - b[s]).cwiseAbs().maxCoeff();
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

Magnitude scale_of(const Batch& x, const std::vector<const Batch*>& answers) {
  Magnitude out(1);
  auto take = [&out](const Batch& batch) {
    for (const auto& m : batch) {
      if (m.size() == 0) continue;
      const double top = m.cwiseAbs().maxCoeff();
      if (std::isfinite(top)) out.largest = std::max(out.largest, top);
      const double row = std::sqrt(m.rowwise().squaredNorm().maxCoeff() / static_cast<double>(m.cols()));
      if (std::isfinite(row)) out.row_rms = std::max(out.row_rms, row);
    }
  };
  take(x);
  for (const Batch* y : answers) take(*y);
  return out;
}

double ceiling_of(const std::vector<const Batch*>& answers) {
  double top = 0;
  for (const Batch* y : answers) {
    for (const auto& m : *y) {
      if (m.size() > 0 && std::isfinite(m.cwiseAbs().maxCoeff())) top = std::max(top, m.cwiseAbs().maxCoeff());
    }
  }
  return 2 * top;
}

Bound comparison_bound(const SubjectInfo& subject, int width, Eigen::Index tokens, Position largest, Magnitude size,
                       double measured_spread, double factor, double ceiling) {
  const double scale = size.largest;
  // A layer's stages sum over the width (projections, MLP, norms: at most
  // 4·width terms each); only attention sums over the sequence, twice (the
  // softmax's normaliser and its weighted sum of N values). Counting N in
  // every stage (before issue 36) made the bound at 4,100 tokens six times
  // what rounding can do, and hid a key of 4,096 rolled out of a cache.
  Bound b = Bound::upper(kStages * kExpansion * width + kSequenceSums * static_cast<double>(tokens), scale,
                         "(12 stages · 4·width + 2 · N) · max(1, |x|, |y|)", Stage::accumulate);
  // The sums actually done, which the probabilistic model roots: every stage
  // over the width but the MLP's down projection over 4·width (the worst case
  // takes each at 4·width), each relative to the largest row's rms (the worst
  // case: the largest entry). A real torch float32 block's two paths came no
  // closer than 1/31.6 of this bound in 3,000 cases a claim (stop 48; 1/169
  // of the bound that rooted 12 · 4·width and took the largest entry).
  b.terms.front().typical_work =
      (kStages - 1 + kExpansion) * width + kSequenceSums * static_cast<double>(tokens);
  b.terms.front().typical_scale = size.row_rms;
  b.plus(Stage::values, kStages, scale, "12 stage outputs · max(1, |x|, |y|)");
  b.terms.back().typical_scale = size.row_rms;
  if (subject.forward && subject.forward->positional != Positional::none) {
    b.plus(Stage::angles, 4 * (5 + 3 * static_cast<double>(largest)), scale,
           fmt::format("4 rotated vectors · (5 + 3·{}) · max(1, |x|, |y|)", largest));
    b.terms.back().independent = false;  // an angle's error grows with t whatever the order: never √
    // The tight bounds: each vector's 5 value roundings apart (√(4·5)); an angle's 3 roundings (ω, t·ω and
    // the evaluation at t·ω) apart, √3·t; a logit turns by the difference of its query's and its key's angles,
    // rounded apart (√2), and the two paths' logits are rounded apart (√2 again): √20 + 2√3·t.
    b.terms.back().typical_work = std::sqrt(4 * 5.0) + 2 * std::sqrt(3.0) * static_cast<double>(largest);
    b.terms.back().typical_scale = size.row_rms;
  }
  // A black box has no reference pecheck can evaluate in its dtype: the
  // tight bound is the probabilistic model of the two paths compared
  // (result/tight_bound.h), the worst case above its ceiling.
  b.probabilistic(2, "two paths of one layer, whose 11 sums over the width, MLP down projection over 4·width and 2 "
                     "sums over N add rounding errors as √work, relative to the largest row's root mean square");
  if (measured_spread > 0) {
    b.plus_fixed(factor * measured_spread,
                 fmt::format("{:g} × the subject's own spread {:.3g} between two answers to one request", factor,
                             measured_spread));
  }
  if (ceiling > 0) b.at_most(ceiling);
  return b;
}

void worst_row(Check& check, const Matrix& observed, const Matrix& expected,
               const std::vector<std::pair<Eigen::Index, Eigen::Index>>& rows, Eigen::Index batch) {
  for (const auto& [o, e] : rows) {
    for (Eigen::Index c = 0; c < expected.cols(); ++c) {
      double error = std::fabs(observed(o, c) - expected(e, c));
      if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
      if (error <= check.error) continue;
      check.error = error;
      check.where.batch = batch;
      check.where.token = o;
      check.where.column = c;
      check.observed = number_to_json(observed(o, c));
      check.expected = number_to_json(expected(e, c));
    }
  }
}

void validate_batch(const Batch& x, const char* what) {
  if (x.empty()) throw InvalidInput(fmt::format("{}: no sequence", what));
  for (const auto& s : x) {
    if (s.rows() < 1 || s.rows() > kLargestRecorded || s.cols() < 1 || s.cols() != x.front().cols() ||
        s.rows() != x.front().rows()) {
      throw InvalidInput(fmt::format("{}: sequences must share one shape N×d with 1 ≤ N ≤ {}", what,
                                     kLargestRecorded));
    }
  }
}

}  // namespace pecheck::module

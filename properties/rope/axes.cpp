// CLAIMS.md §9 — rope.axis_independence: with multi-axis positions (mrope:
// Qwen2-VL's sections, Qwen3-VL's interleaving), changing one axis's
// position of one row changes only that axis's feature pairs of that row, and
// turns each of them by (t' − t)·ω_i. A port that applies the t position to
// every pair (plain RoPE on position_ids[0]), one that reads the sections in
// the wrong order or ignores mrope_interleaved, or one that restarts the
// frequencies in each section fails here, naming the pair that moved.
//
// Two requests in one sequence differ in one position: row 0's on `axis`.
// Pairs of another axis, and every pair of the other rows, must come back as
// they were (within two computed rotations: each answer's own rounding);
// row 0's pairs of the moved axis must be the first answer's turned by
// (t' − t)·ω_i (the harness turns them in double).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "angle_error.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::axes {

namespace {

constexpr const char* kOthers = "other axes' pairs unchanged";
constexpr const char* kMoved = "moved axis's pairs turn by Δt·ω_i";
constexpr const char* kAxisNames[] = {"t", "h", "w"};

struct AxisCase {
  int dim = 2;
  std::vector<Positions> axes;  // one list per axis, one position per row
  Position seq_len = 1;
  Matrix x;
  int axis = 0;          // the axis whose position of row 0 moves
  Position moved_to = 1;  // row 0's new position on it
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    if (axes.empty() || axes.size() > 3) throw InvalidInput("rope.axis_independence: 1 to 3 axes of positions");
    for (const auto& axis_positions : axes) input::positions("axes", axis_positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(axes.front().size()), dim);
    for (const auto& a : axes) {
      if (a.size() != axes.front().size()) throw InvalidInput("rope.axis_independence: one position per row on each axis");
    }
    if (axis < 0 || axis >= static_cast<int>(axes.size())) throw InvalidInput("rope.axis_independence: axis out of range");
    input::position("moved_to", moved_to, seq_len);
    if (moved_to == axes[static_cast<size_t>(axis)][0]) throw InvalidInput("rope.axis_independence: moved_to must move");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AxisCase, dim, axes, seq_len, x, axis, moved_to)

rc::Gen<AxisCase> axis_gen(const GenContext& ctx) {
  const auto count = std::max<size_t>(ctx.subject.rotate.mrope_section.size(), 1);
  return rc::gen::mapcat(dim_among(within_gate(valid_dims(ctx.subject), ctx)), [ctx, count](int dim) {
    return rc::gen::mapcat(rc::gen::inRange(1, 4), [ctx, count, dim](int rows) {
      return rc::gen::apply(
          [dim, count, rows](std::vector<Position> ts, int axis, Position moved_to, Position extra, Matrix x) {
            AxisCase c;
            c.dim = dim;
            c.axes.assign(count, Positions(static_cast<size_t>(rows)));
            for (size_t a = 0; a < count; ++a) {
              for (size_t k = 0; k < static_cast<size_t>(rows); ++k) c.axes[a][k] = ts[a * static_cast<size_t>(rows) + k];
            }
            c.axis = axis % static_cast<int>(count);
            const Position was = c.axes[static_cast<size_t>(c.axis)][0];
            if (moved_to == was) ++moved_to;
            c.moved_to = moved_to;
            Position last = moved_to;
            for (const auto& a : c.axes) last = std::max(last, *std::max_element(a.begin(), a.end()));
            c.seq_len = last + 1 + extra;
            c.x = std::move(x);
            return c;
          },
          rc::gen::container<std::vector<Position>>(count * static_cast<size_t>(rows), position(ctx)),
          rc::gen::inRange(0, static_cast<int>(count)), position(ctx), extra_length(ctx), vectors(rows, dim));
    });
  });
}

// One pair's comparison: the second answer against the first turned by the move.
struct PairError {
  Eigen::Index row = 0;
  int pair = 0, column = 0;
  double error = 0, s_pair = 0, work = 0, observed = 0, expected = 0;
  bool moves = false;  // the pair turns by the moved axis of the moved row
};

// What a pair's check is judged with, and the worst check of each kind so far.
struct AxisJudge {
  const AxisCase& c;
  const RotateConvention& convention;
  int r = 0;
  double factor = 0, u_values = 0, u_angles = 0;
  Position was = 0;  // row 0's position on the moved axis before the move
  std::optional<Check> others, turned;
  double others_ratio = -1, turned_ratio = -1;

  // Keeps the pair's check when its error / tolerance is the worst of its kind so far.
  void keep(const PairError& e) {
    std::optional<Check>& slot = e.moves ? turned : others;
    double& slot_ratio = e.moves ? turned_ratio : others_ratio;
    Check check;
    check.name = e.moves ? kMoved : kOthers;
    check.error = e.error;
    check.bound = Bound::upper(10, e.s_pair, "2 rotations · 5 value roundings · m(|x_a| + |x_b|)");
    check.bound.plus(Stage::angles, e.work, e.s_pair, "the two rotations' angle work · m(|x_a| + |x_b|)");
    if (e.s_pair > 0) check.bound.at_most(2 * e.s_pair);
    const double tolerance = factor * (u_values * 10 + u_angles * e.work) * e.s_pair;
    // A pair this precision cannot resolve is kept only while nothing else is
    // (the judge then reports the check not checkable).
    const bool unresolved = e.s_pair > 0 && tolerance >= 2 * e.s_pair;
    const double ratio = unresolved ? -0.5 : tolerance > 0 ? e.error / tolerance : (e.error > 0 ? INFINITY : 0.0);
    if (ratio <= slot_ratio) return;
    slot_ratio = ratio;
    check.where.row = e.row;
    check.where.pair = e.pair;
    check.where.column = e.column;
    check.where.position = c.moved_to;
    check.observed = number_to_json(e.observed);
    check.expected = number_to_json(e.expected);
    const int pair_axis = reference::rotary_axis(e.pair, r, convention);
    check.where.label = fmt::format("pair {} (axis {}) of row {}, axis {} of row 0 moved {} → {}", e.pair,
                                    kAxisNames[pair_axis], e.row, kAxisNames[c.axis], was, c.moved_to);
    slot = std::move(check);
  }
};

// Pair i of `row`: the second answer against the first, turned by
// (t' − t)·ω_i where the pair turns by the moved axis of row 0, else unchanged.
PairError compare_pair(const AxisJudge& j, const Matrix& before, const Matrix& after, Eigen::Index row, int i,
                       double m, double w, int roundings) {
  const AxisCase& c = j.c;
  const int r = j.r;
  const Layout layout = j.convention.layout;
  const int axis = reference::rotary_axis(i, r, j.convention);
  const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
  const int oa = reference::rotary_output_first_column(i, r, layout);
  const int ob = reference::rotary_output_second_column(i, r, layout);
  PairError e;
  e.row = row;
  e.pair = i;
  e.s_pair = m * (std::fabs(c.x(row, a)) + std::fabs(c.x(row, b)));
  const Position t = c.axes[static_cast<size_t>(axis)][static_cast<size_t>(row)];
  e.moves = row == 0 && axis == c.axis;
  const Position t_after = e.moves ? c.moved_to : t;
  e.work = angle_work(static_cast<double>(t), w, roundings) + angle_work(static_cast<double>(t_after), w, roundings);
  double want_a = before(row, oa), want_b = before(row, ob);
  if (e.moves) {
    // Turn the first answer's pair by (t' − t)·ω_i, in long double.
    const long double turn = static_cast<long double>(c.moved_to - j.was) * w;
    const long double ca = std::cos(turn), sa = std::sin(turn);
    want_a = static_cast<double>(before(row, oa) * ca - before(row, ob) * sa);
    want_b = static_cast<double>(before(row, oa) * sa + before(row, ob) * ca);
  }
  const double ea = std::fabs(after(row, oa) - want_a), eb = std::fabs(after(row, ob) - want_b);
  const bool second = eb > ea || std::isnan(eb);
  e.error = second ? eb : ea;
  if (std::isnan(after(row, oa)) || std::isnan(after(row, ob))) e.error = INFINITY;
  e.column = second ? ob : oa;
  e.observed = after(row, e.column);
  e.expected = second ? want_b : want_a;
  return e;
}

Measurement axis_measure(Subject& s, const AxisCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  const auto length = sent_length(info, c.seq_len);
  std::vector<Positions> moved = c.axes;
  moved[static_cast<size_t>(c.axis)][0] = c.moved_to;
  const Matrix before = rotate_axes(s, c.axes, c.x, length);
  const Matrix after = rotate_axes(s, moved, c.x, length);
  const int r = rotated_width(info, c.dim);
  const auto omegas = frequencies(info, c.dim, request_length(info, c.axes, length));
  const double m = magnitude(info);
  const int roundings = frequency_roundings(info);
  AxisJudge judge{c, convention, r, model.factor(), model.u(Stage::values), model.u(Stage::angles),
                  c.axes[static_cast<size_t>(c.axis)][0]};
  for (Eigen::Index row = 0; row < c.x.rows(); ++row) {
    for (int i = 0; i < r / 2; ++i) {
      judge.keep(compare_pair(judge, before, after, row, i, m, omegas[static_cast<size_t>(i)], roundings));
    }
  }
  Measurement out;
  for (auto* slot : {&judge.others, &judge.turned}) {
    if (!*slot) continue;
    (*slot)->note = fmt::format("two requests in one sequence of {} differing only in row 0's position on axis {} "
                                "({} → {}), on the rotated block (features 0..{})",
                                c.seq_len, kAxisNames[c.axis], judge.was, c.moved_to, r - 1);
    out.checks.push_back(std::move(**slot));
  }
  if (out.checks.empty()) throw std::logic_error("rope.axis_independence compared no pair");
  return out;
}

// "t 0–15, h 16–39, w 40–63": each axis's pairs, as runs.
std::string pair_runs(const std::vector<int>& axis_of) {
  std::string out;
  for (size_t i = 0; i < axis_of.size();) {
    size_t j = i;
    while (j + 1 < axis_of.size() && axis_of[j + 1] == axis_of[i]) ++j;
    const char* name = axis_of[i] < 0 ? "?" : axis_of[i] >= 3 ? "several" : kAxisNames[axis_of[i]];
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, i == j ? fmt::format("{}", i) : fmt::format("{}–{}", i, j));
    i = j + 1;
  }
  return out;
}

// The axes of the runs of axis_of, in order (each once when it is chunked).
std::vector<int> run_axes(const std::vector<int>& axis_of) {
  std::vector<int> axes;
  for (size_t i = 0; i < axis_of.size(); ++i) {
    if (i == 0 || axis_of[i] != axis_of[i - 1]) axes.push_back(axis_of[i]);
  }
  return axes;
}

// The sizes of the runs of axis_of when it is chunked (each axis one run), in order; empty otherwise.
std::vector<int> chunk_sizes(const std::vector<int>& axis_of) {
  std::vector<int> sizes, seen;
  for (size_t i = 0; i < axis_of.size(); ++i) {
    if (i == 0 || axis_of[i] != axis_of[i - 1]) {
      if (axis_of[i] < 0 || std::find(seen.begin(), seen.end(), axis_of[i]) != seen.end()) return {};
      seen.push_back(axis_of[i]);
      sizes.push_back(0);
    }
    ++sizes.back();
  }
  return sizes;
}

// Which axis turns each pair, measured, beside the axis the declared
// sections give it (-1: not resolved or moved by none; 3: moved by several).
struct PairAxes {
  std::vector<int> observed, expected;
  Position delta = 0;  // how far each axis was moved
  bool differs = false, every_pair_by_t = false;
};

// Each axis of one row moved in turn (ones as the input, so every pair shows
// its turn) and the pairs that move read off.
PairAxes measure_pair_axes(Subject& s, const AxisCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  const int r = rotated_width(info, c.dim), pairs = r / 2;
  const size_t count = c.axes.size();
  const Position was = c.axes[static_cast<size_t>(c.axis)][0];
  PairAxes out;
  // A move of at least 8 positions: most pairs turn far enough to be seen in any precision.
  const Position delta = out.delta = std::max<Position>(8, c.moved_to > was ? c.moved_to - was : was - c.moved_to);
  std::vector<Positions> base(count);
  for (size_t a = 0; a < count; ++a) base[a] = {c.axes[a][0]};
  Position last = 0;
  for (const auto& a : base) last = std::max(last, a[0] + delta);
  const auto length = sent_length(info, std::max(c.seq_len, last + 1));
  const Matrix ones = Matrix::Ones(1, c.dim);
  const Matrix before = rotate_axes(s, base, ones, length);
  const auto omegas = frequencies(info, c.dim, request_length(info, base, length));
  // A pair "moves" when it changes by more than both answers' rounding (values, and angles up to the
  // largest position), on a pair of norm √2·m.
  const double omega_max = omegas.empty() ? 1.0 : *std::max_element(omegas.begin(), omegas.end());
  const double tolerance = (16 * model.u(Stage::values) + 4 * model.u(Stage::angles) * static_cast<double>(last) * omega_max) *
                           std::sqrt(2.0) * magnitude(info);
  std::vector<std::vector<bool>> moves(static_cast<size_t>(pairs), std::vector<bool>(count, false));
  std::vector<bool> resolved(static_cast<size_t>(pairs), true);
  for (size_t a = 0; a < count; ++a) {
    std::vector<Positions> moved = base;
    moved[a][0] += delta;
    const Matrix after = rotate_axes(s, moved, ones, length);
    for (int i = 0; i < pairs; ++i) {
      const int oa = reference::rotary_output_first_column(i, r, convention.layout);
      const int ob = reference::rotary_output_second_column(i, r, convention.layout);
      const double change = std::hypot(after(0, oa) - before(0, oa), after(0, ob) - before(0, ob));
      // The chord a turn by Δ·ω_i draws on a pair of norm √2m; too small to see: not resolved.
      const double chord = 2 * std::sqrt(2.0) * magnitude(info) *
                           std::fabs(std::sin(static_cast<double>(delta) * omegas[static_cast<size_t>(i)] / 2));
      if (chord < 4 * tolerance) resolved[static_cast<size_t>(i)] = false;
      moves[static_cast<size_t>(i)][a] = change > tolerance;
    }
  }
  std::vector<int>& observed = out.observed;
  std::vector<int>& expected = out.expected;
  observed.resize(static_cast<size_t>(pairs));
  expected.resize(static_cast<size_t>(pairs));
  bool differs = false, every_pair_by_t = count > 1;
  for (int i = 0; i < pairs; ++i) {
    const auto& m = moves[static_cast<size_t>(i)];
    const auto n = std::count(m.begin(), m.end(), true);
    int& o = observed[static_cast<size_t>(i)];
    o = !resolved[static_cast<size_t>(i)] ? -1 : n == 1 ? static_cast<int>(std::find(m.begin(), m.end(), true) - m.begin())
                                          : n == 0 ? -1 : 3;
    expected[static_cast<size_t>(i)] = reference::rotary_axis(i, r, convention);
    if (resolved[static_cast<size_t>(i)]) {
      differs = differs || o != expected[static_cast<size_t>(i)];
      every_pair_by_t = every_pair_by_t && o == 0;
    }
  }
  out.differs = differs;
  out.every_pair_by_t = every_pair_by_t;
  return out;
}

// The measured assignment named against the declared sections: the t
// position on every pair, the sections' sizes in another order, interleaved
// for chunked or the reverse — else the two assignments, pair by pair.
std::string name_pair_axes(const PairAxes& found, const RotateConvention& convention) {
  const std::vector<int>& observed = found.observed;
  const std::vector<int>& expected = found.expected;
  if (!found.differs) {
    return fmt::format("each axis turns the pairs the declared sections give it ({}): the pairs are assigned right; "
                       "the turn itself is off (frequencies restarted in each section, or the positions of one axis "
                       "scaled)",
                       pair_runs(expected));
  }
  if (found.every_pair_by_t) {
    return fmt::format("every pair turns by the t position and none by h or w (moved one at a time by {}): the "
                       "positions of the other axes are never used, as plain RoPE on position_ids[0] does; declared "
                       "sections give {}",
                       found.delta, pair_runs(expected));
  }
  const auto sizes = chunk_sizes(observed), declared_sizes = chunk_sizes(expected);
  const std::string both = fmt::format("observed {}; declared {}", pair_runs(observed), pair_runs(expected));
  if (!sizes.empty() && !declared_sizes.empty()) {
    auto sorted = sizes, declared_sorted = declared_sizes;
    std::sort(sorted.begin(), sorted.end());
    std::sort(declared_sorted.begin(), declared_sorted.end());
    if (sizes == declared_sizes && run_axes(observed) != run_axes(expected)) {
      std::vector<std::string> order;
      for (int a : run_axes(observed)) order.push_back(kAxisNames[a]);
      return fmt::format("the sections have the declared sizes but turn by other axes' positions (the position "
                         "streams stacked as ({}) where (t, h, w) is declared): {}",
                         fmt::join(order, ", "), both);
    }
    if (sorted == declared_sorted) {
      return fmt::format("the sections' sizes are taken in another order ({} pairs per run where mrope_section is "
                         "[{}]): {}",
                         fmt::join(sizes, ", "), fmt::join(convention.mrope_section, ", "), both);
    }
    if (convention.mrope_interleaved) {
      return fmt::format("chunked sections (each axis one run of pairs) where interleaved ones are declared "
                         "(mrope_interleaved ignored): {}",
                         both);
    }
  }
  if (sizes.empty() && !declared_sizes.empty()) {
    return fmt::format("the axes' pairs are not one run each where chunked sections are declared (interleaved "
                       "sections, Qwen3-VL's mrope_interleaved, where Qwen2-VL's chunks are declared?): {}",
                       both);
  }
  return fmt::format("the pairs follow other axes than the declared sections give them: {}", both);
}

// Which axis turns which pair, measured (measure_pair_axes) and named beside
// the declared sections (name_pair_axes).
std::string axis_diagnosis(Subject& s, const AxisCase& c, const BoundModel& model) {
  return name_pair_axes(measure_pair_axes(s, c, model), declared(s.info()));
}

}  // namespace

PropertyImpl axis_independence() {
  return define<AxisCase>("rope.axis_independence", {kOthers, kMoved}, axis_gen, axis_measure, axis_diagnosis);
}

std::vector<PropertyImpl> properties() { return {axis_independence()}; }

}  // namespace pecheck::rope::axes

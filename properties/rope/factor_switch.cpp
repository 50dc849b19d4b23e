// CLAIMS.md §9 — rope.factor_switch: LongRoPE rotates with its short factors
// while the sequence is at most the original length L, and a sequence that
// grows past L is answered with the long factors for every position — the
// positions of its first L tokens too (the keys of its cache). vLLM before PR
// #27431 picked the factor set by the positions of each request (issue
// #27414): a cache rotated with short factors, then queries past L with long
// ones, a mix no single rotation explains. llama.cpp picks it by the
// allocated context (#24823): long factors for short sequences.
//
// Each case sends the same early positions (all below L) twice: in a
// sequence of short_len ≤ L tokens, and in one of long_len > L tokens, alone
// and beside a position past L. Every answer is judged against the reference
// at its sequence's length. The `context` rule (a factor set fixed by the
// context the model is configured for) is judged as declared; the `position`
// rule is judged by the claim, which is what it breaks.
#include <fmt/format.h>

#include <algorithm>

#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::factor_switch {

namespace {

constexpr const char* kShort = "sequence at or below the original length";
constexpr const char* kLong = "sequence past the original length";

struct FactorSwitchCase {
  int dim = 2;
  Positions early;          // positions below L, one row of x each
  Position late = 0;        // a position in [L, long_len), the last row of x
  Position short_len = 1;   // ≤ L
  Position long_len = 0;    // > L; 0: the gate stops below L, no sequence past it is asked
  Matrix x;                 // early.size() + 1 rows
  void validate() const {
    input::width("dim", dim);
    input::length("short_len", short_len);
    input::positions("early", early, short_len);
    input::matrix("x", x, static_cast<Eigen::Index>(early.size()) + 1, dim);
    if (long_len != 0) {
      input::length("long_len", long_len);
      input::position("late", late, long_len);
      if (long_len <= short_len || late < short_len) {
        throw InvalidInput("rope.factor_switch: long_len > short_len and late ≥ short_len");
      }
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FactorSwitchCase, dim, early, late, short_len, long_len, x)

Position original(const SubjectInfo& s) { return s.rotate.scaling.original_max_position; }

rc::Gen<FactorSwitchCase> factor_switch_gen(const GenContext& ctx) {
  const Position L = std::max<Position>(original(ctx.subject), 1);
  // Past L only where the gate reaches it.
  const bool past = ctx.max_position >= L + 1;
  const Position top = past ? ctx.max_position : L - 1;
  return rc::gen::mapcat(dim_among(within_gate(valid_dims(ctx.subject), ctx)), [ctx, L, past, top](int dim) {
    auto early = rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<Positions>(position(ctx, L - 1))));
    return rc::gen::apply(
        [dim, L, past](Positions ts, Position short_extra, Position late_extra, Position long_extra, Matrix x) {
          FactorSwitchCase c;
          c.dim = dim;
          if (ts.size() > 4) ts.resize(4);  // x has a row for 4 of them and the late one
          const Position last = *std::max_element(ts.begin(), ts.end());
          c.early = std::move(ts);
          c.short_len = std::min(L, last + 1 + short_extra);
          if (past) {
            // A query past L (position L + 1 on: the first a per-position rule also calls long).
            c.long_len = L + 2 + long_extra;
            c.late = std::min(L + 1 + late_extra, c.long_len - 1);
          }
          c.x = x.topRows(static_cast<Eigen::Index>(c.early.size()) + 1);
          return c;
        },
        early, rc::gen::inRange<Position>(0, L), position(ctx, std::max<Position>(top - L - 1, 0)),
        position(ctx, std::max<Position>(top - L - 1, 0)), vectors(5, dim));
  });
}

// The convention the claim judges by: the declared one, but a factor set
// chosen by the request's own positions is judged by the sequence's length.
RotateConvention claimed(const SubjectInfo& info) {
  RotateConvention c = declared(info);
  if (c.scaling.factor_switch == FactorSwitch::position) c.scaling.factor_switch = FactorSwitch::length;
  return c;
}

// One request's rows against the claim's reference at `length`.
PairComparison judged(Subject& s, const BoundModel& model, const Positions& ts, const Matrix& x, Position length,
                      const char* check) {
  const SubjectInfo& info = s.info();
  const RotateConvention c = claimed(info);
  const Matrix answer = rotate_as_answered(s, ts, x, length);
  const Matrix expected = reference::rotary(ts, x, c, length);
  const int r = reference::rotary_block(static_cast<int>(x.cols()), c);
  return compare_pairs(info, model, ts, x, answer, expected, reference::rotary_inv_freq(r, c, length), c,
                       reference::rotary_magnitude(c), check);
}

Check verdict(PairComparison compared, const std::string& note) {
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.factor_switch compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  check.note = note;
  return check;
}

Measurement factor_switch_measure(Subject& s, const FactorSwitchCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = claimed(info);
  const Position L = original(info);
  const auto early_rows = c.x.topRows(static_cast<Eigen::Index>(c.early.size()));
  const auto factors = [&](Position length) { return reference::longrope_long(convention, length) ? "long" : "short"; };
  Measurement m;
  m.checks.push_back(verdict(judged(s, model, c.early, early_rows, c.short_len, kShort),
                             fmt::format("positions below L = {} in a sequence of {} tokens, against the {} factors",
                                         L, c.short_len, factors(c.short_len))));
  if (c.long_len == 0) {
    m.note = fmt::format("--max-position is below the original length {} + 1: no sequence past it was asked", L);
    return m;
  }
  // The cache's rows alone (a prefill, or keys re-read), then beside a query past L.
  PairComparison alone = judged(s, model, c.early, early_rows, c.long_len, kLong);
  Positions with_late = c.early;
  with_late.push_back(c.late);
  PairComparison beside = judged(s, model, with_late, c.x, c.long_len, kLong);
  const bool alone_worse = alone.worst_ratio >= beside.worst_ratio;
  m.checks.push_back(verdict(
      alone_worse ? std::move(alone) : std::move(beside),
      fmt::format("positions below L = {} {} in a sequence of {} tokens, against the {} factors for every position",
                  L, alone_worse ? "alone" : fmt::format("beside position {}", c.late), c.long_len,
                  factors(c.long_len))));
  return m;
}

// Which factor set a request's answer fits: short, long, or neither.
std::string fits(Subject& s, const BoundModel& model, const Positions& ts, const Matrix& x, Position length) {
  const SubjectInfo& info = s.info();
  const Matrix answer = rotate_as_answered(s, ts, x, length);
  const int r = reference::rotary_block(static_cast<int>(x.cols()), declared(info));
  for (const bool long_set : {false, true}) {
    // Both lists set to the one tried: that set at any length.
    RotateConvention c = declared(info);
    const std::vector<double> tried = long_set ? c.scaling.long_factor : c.scaling.short_factor;
    c.scaling.short_factor = c.scaling.long_factor = tried;
    const Matrix expected = reference::rotary(ts, x, c, length);
    const auto compared = compare_pairs(info, model, ts, x, answer, expected, reference::rotary_inv_freq(r, c, length),
                                        c, reference::rotary_magnitude(c), "fit");
    if (compared.worst && compared.worst_ratio <= 1) return long_set ? "long" : "short";
  }
  return "neither";
}

std::string factor_switch_diagnose(Subject& s, const FactorSwitchCase& c, const BoundModel& model) {
  const Position L = original(s.info());
  const auto early_rows = c.x.topRows(static_cast<Eigen::Index>(c.early.size()));
  try {
    const std::string below = fits(s, model, c.early, early_rows, c.short_len);
    std::string out = fmt::format("at length {} (≤ L = {}) the answers fit the {} factors", c.short_len, L, below);
    if (below == "long") out += " (a factor set chosen by the allocated context, not the sequence: llama.cpp #24823)";
    if (c.long_len == 0) return out;
    const std::string alone = fits(s, model, c.early, early_rows, c.long_len);
    Positions with_late = c.early;
    with_late.push_back(c.late);
    const std::string beside = fits(s, model, with_late, c.x, c.long_len);
    out += fmt::format("; at length {} (> L) positions below L alone fit the {} factors, beside position {} the {}",
                       c.long_len, alone, c.late, beside);
    if (alone == "short" && beside == "long") {
      out += " — the factor set follows the request's positions, so a cache rotated with short factors meets "
             "queries rotated with long ones (vLLM #27414; fixed by choosing it once, PR #27431)";
    } else if (alone == "short" && beside == "short") {
      out += " — positions below L keep the short factors in a long sequence (a per-position table)";
    }
    return out;
  } catch (const Refusal& r) {
    return fmt::format("no diagnosis: the subject refused a probe ({})", r.what());
  }
}

}  // namespace

PropertyImpl factor_switch() {
  return define<FactorSwitchCase>("rope.factor_switch", {kShort, kLong}, factor_switch_gen, factor_switch_measure,
                                  factor_switch_diagnose);
}

std::vector<PropertyImpl> properties() { return {factor_switch()}; }

}  // namespace pecheck::rope::factor_switch

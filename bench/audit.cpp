#include "audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

#include "pecheck/planted/mutants.h"
#include "pecheck/runner/session.h"

namespace pecheck::bench {

namespace {

RunReport run_quietly(RunOptions options) {
  options.regressions = false;
  options.plots = false;
  Plan p = plan(options);
  RunObserver quiet;
  return run(p, quiet);
}

// A planted bug about precision: angles, tables or caches in a narrower dtype than declared.
bool precision_bug(const std::string& mutant) {
  for (const char* part : {"float16", "fp16", "bf16", "bfloat16", "precision"}) {
    if (mutant.find(part) != std::string::npos) return true;
  }
  return false;
}

struct Loosest {
  double ratio = std::numeric_limits<double>::infinity();  // bound / error of the closest call
  std::string subject, judged_by;
  std::string detail;  // the closest case: where, its error and the formula that judged it
  int cells = 0;
  // The same among the shape ladder's cases (the sizes real models use), where a
  // loose bound hides a bug; no ladder case with an error leaves it infinite.
  double ladder_ratio = std::numeric_limits<double>::infinity();
  std::string ladder_detail;
};

// A check the audit measures: an upper bound above zero (exact claims and lower bounds have no looseness).
bool audited(const JudgedCheck& c) { return c.check.bound.kind == Bound::Kind::upper && c.tolerance.bound > 0; }

double ratio_of(const JudgedCheck& c) {
  return c.check.error > 0 ? c.tolerance.bound / c.check.error : std::numeric_limits<double>::infinity();
}

// A ratio as the table shows it: "(no error)" where every answer was exact.
std::string shown(double ratio) { return std::isinf(ratio) ? "(no error)" : fmt::format("{:.3g}", ratio); }

std::string detail_of(const JudgedCheck& c) {
  return fmt::format("{}: error {:.3g}, bound {}", describe(c.check.where), c.check.error, c.tolerance.formula);
}

}  // namespace

void print_audit(double scale) {
  install_planted_subjects();
  const char* detail_env = std::getenv("PECHECK_AUDIT_DETAIL");
  const bool detail = detail_env != nullptr && std::string(detail_env) == "1";
  RunOptions options;
  options.cases = std::max(100, static_cast<int>(100 * scale));
  options.jobs = 2;
  const RunReport matrix = run_quietly(options);
  // Per claim, the tightest bound / error over the correct built-ins that held: the
  // closest any correct implementation came to its bound, at the ladder's sizes too.
  std::map<std::string, Loosest> claims;
  for (const auto& r : matrix.results) {
    const auto* held = std::get_if<Held>(&r.outcome);
    if (r.expectation != Expect::holds || held == nullptr || !held->closest) continue;
    const JudgedCheck& c = *held->closest;
    if (!audited(c)) continue;
    Loosest& l = claims[r.property];
    ++l.cells;
    const double ratio = ratio_of(c);
    if (ratio < l.ratio || l.subject.empty()) {
      l.ratio = ratio;
      l.subject = r.subject;
      l.judged_by = c.tolerance.judged_by.empty() ? "worst case (only)" : c.tolerance.judged_by;
      l.detail = detail_of(c);
    }
    const auto& ladder = held->closest_in_ladder;
    if (ladder && audited(*ladder) && ratio_of(*ladder) < l.ladder_ratio) {
      l.ladder_ratio = ratio_of(*ladder);
      l.ladder_detail = fmt::format("{} ({})", detail_of(*ladder), r.subject);
    }
  }
  fmt::print("\nbound audit: bound / largest error on the correct built-ins ({} cases per cell), over every case "
             "and over the shape ladder's (the sizes real models use)\n{:<44} {:>6} {:>12} {:>12}  {:<24} {}\n",
             options.cases, "claim", "cells", "every case", "ladder", "judged by", "closest subject");
  for (const auto& [claim, l] : claims) {
    fmt::print("{:<44} {:>6} {:>12} {:>12}  {:<24} {}\n", claim, l.cells, shown(l.ratio), shown(l.ladder_ratio),
               l.judged_by, l.subject);
    // PECHECK_AUDIT_DETAIL=1: the cases behind each ratio, to see where a bound is loose.
    if (detail) fmt::print("    {}\n    ladder: {}\n", l.detail, l.ladder_detail.empty() ? "-" : l.ladder_detail);
  }

  // The margin of the first failing case as drawn, not of the shrunk one: shrinking keeps the smallest case
  // that still fails, whose error sits just past its bound by construction (a ratio near 1 says nothing of
  // how far a bug's typical case lies from the bound).
  fmt::print("\nplanted precision bugs: error / bound of the first failing case, unshrunk (the margin)\n"
             "{:<40} {:<40} {:>10}  {}\n",
             "mutant", "claim", "margin", "judged by");
  for (const auto& row : planted_catches()) {
    if (!precision_bug(row.mutant)) continue;
    RunOptions one;
    one.subjects = {std::string("mutant:") + row.mutant};
    one.properties = {row.property};
    one.cases = options.cases;
    one.jobs = 1;
    one.shrink = false;
    const RunReport r = run_quietly(one);
    for (const auto& result : r.results) {
      const Counterexample* c = result.counterexample();
      if (c == nullptr) {
        fmt::print("{:<40} {:<40} {:>10}  {}\n", row.mutant, row.property, "not caught", name(result.outcome));
        continue;
      }
      // How far past its bound: error / bound, or bound / value for a lower bound (a distance that must exceed it).
      const bool lower = c->bound_kind == Bound::Kind::lower;
      const double margin = !(c->tolerance.bound > 0) ? std::numeric_limits<double>::infinity()
                            : lower                  ? (c->error > 0 ? c->tolerance.bound / c->error
                                                                     : std::numeric_limits<double>::infinity())
                                                     : c->error / c->tolerance.bound;
      fmt::print("{:<40} {:<40} {:>10}  {}\n", row.mutant, row.property,
                 std::isinf(margin) ? std::string("∞ (exact)") : fmt::format("{:.3g}", margin),
                 c->tolerance.judged_by.empty() ? "worst case (only)" : c->tolerance.judged_by);
    }
  }
}

}  // namespace pecheck::bench

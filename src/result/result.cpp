#include "pecheck/result/result.h"

#include <fmt/format.h>

namespace pecheck {

namespace {
template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;
}  // namespace

Counterexample counterexample_of(json inputs, const JudgedCheck& failed, const std::string& case_note) {
  Counterexample c;
  c.inputs = std::move(inputs);
  c.check = failed.check.name;
  c.bound_kind = failed.check.bound.kind;
  c.error = failed.check.error;
  c.tolerance = failed.tolerance;
  c.location = failed.check.where;
  c.observed = failed.check.observed;
  c.expected = failed.check.expected;
  c.note = failed.check.note;
  if (!case_note.empty()) c.note += (c.note.empty() ? "" : "; ") + case_note;
  return c;
}

std::string coverage_line(int cases, int discards, const Coverage& c) {
  std::string out = fmt::format("{} case{}", cases, cases == 1 ? "" : "s");
  if (c.ladder_cases > 0) out += fmt::format(" + {} at real-model shapes", c.ladder_cases);
  if (discards > 0) {
    out += fmt::format(", {} refused ({:.0f}%)", discards, 100.0 * discards / (cases + discards));
  }
  if (c.not_checkable > 0) out += fmt::format(", {} not checkable", c.not_checkable);
  if (c.max_position) out += fmt::format(", positions ≤ {}", *c.max_position);
  if (const std::string axes = axes_line(c); !axes.empty()) {
    out += ", " + axes;
  } else if (c.max_width > 0) {
    out += fmt::format(", widths ≤ {}", c.max_width);
  }
  return out;
}

std::string axes_line(const Coverage& c) {
  // The gated axes, each against its gate; positions have their own clause above.
  std::string out;
  for (const auto& [axis, a] : c.axes) {
    if (axis == Axis::positions || a.gate <= 0) continue;
    out += fmt::format("{}{} {} of {}", out.empty() ? "" : ", ", name(axis), a.reached, a.gate);
  }
  return out;
}

std::string_view name(const Outcome& outcome) {
  return std::visit(overloaded{[](const Held&) { return std::string_view("holds"); },
                               [](const Violated&) { return std::string_view("violated"); },
                               [](const Uncovered&) { return std::string_view("uncovered"); },
                               [](const NotRun&) { return std::string_view("skipped"); },
                               [](const auto&) { return std::string_view("error"); }},
                    outcome);
}

Status status_of(const Outcome& outcome, Expect expectation) {
  return std::visit(overloaded{[&](const Held&) { return expectation == Expect::holds ? Status::passed : Status::failed; },
                               [&](const Violated&) {
                                 return expectation == Expect::violated ? Status::passed : Status::failed;
                               },
                               [](const Uncovered&) { return Status::failed; },
                               [](const NotRun&) { return Status::skipped; },
                               [](const auto&) { return Status::error; }},
                    outcome);
}

Status PropertyResult::status() const { return status_of(outcome, expectation); }

std::string PropertyResult::message() const {
  std::string refused;
  if (discards > 0) {
    refused = fmt::format("{} input(s) refused by the subject, e.g. \"{}\"", discards, discard_reason);
  }
  if (regressions_unfit > 0) {
    refused += fmt::format("{}{} stored regression(s) no longer fit this property's input and were skipped",
                           refused.empty() ? "" : "; ", regressions_unfit);
  }
  auto join = [&refused](std::string first) {
    if (refused.empty()) return first;
    return first.empty() ? refused : first + "; " + refused;
  };
  return std::visit(
      overloaded{[&](const Held& h) {
                   if (expectation != Expect::violated) return join({});
                   // What was tried: the range covered and the case that came closest to a violation.
                   // coverage_line starts with the case count, so it is not repeated.
                   std::string tried =
                       "expected a violation; none found in " + coverage_line(cases, discards, coverage);
                   if (h.closest) {
                     const JudgedCheck& c = *h.closest;
                     tried += fmt::format(": the largest difference, \"{}\" {:.3g} at {}, stayed within its bound "
                                          "{:.3g}",
                                          c.check.name, c.check.error, describe(c.check.where), c.tolerance.bound);
                     if (!c.check.note.empty()) tried += " (" + c.check.note + ")";
                   }
                   return join(tried);
                 },
                 [&](const Violated& v) {
                   if (v.regression_file.empty()) return join({});
                   return join(fmt::format("stored regression {} replayed first: it still fails; no new case generated",
                                           v.regression_file));
                 },
                 [&](const GaveUp& g) {
                   // A cell stopped on refusals names them, grouped, already.
                   return g.reason.starts_with("stopped early") ? g.reason : join(g.reason);
                 },
                 [](const SubjectFailed& f) { return "subject failure: " + f.failure.message; },
                 [&](const Errored& e) { return join(e.message); },
                 [](const NotRun& n) { return n.reason; },
                 [&](const Uncovered& u) { return join(u.shortfall); }},
      outcome);
}

const Counterexample* PropertyResult::counterexample() const {
  const auto* v = std::get_if<Violated>(&outcome);
  return v != nullptr ? &v->counterexample : nullptr;
}

const SubjectFailureInfo* PropertyResult::subject_failure() const {
  const auto* f = std::get_if<SubjectFailed>(&outcome);
  return f != nullptr ? &f->failure : nullptr;
}

double PropertyResult::error() const {
  if (const auto* c = counterexample()) return c->error;
  if (const auto* h = std::get_if<Held>(&outcome); h != nullptr && h->closest) return h->closest->check.error;
  return 0;
}

Tolerance PropertyResult::tolerance() const {
  if (const auto* c = counterexample()) return c->tolerance;
  if (const auto* h = std::get_if<Held>(&outcome); h != nullptr && h->closest) return h->closest->tolerance;
  return {};
}

std::string PropertyResult::note() const {
  if (const auto* c = counterexample()) return c->note;
  if (const auto* h = std::get_if<Held>(&outcome); h != nullptr && h->closest) {
    const std::string& check = h->closest->check.note;
    if (h->case_note.empty()) return check;
    return check.empty() ? h->case_note : check + "; " + h->case_note;
  }
  return {};
}

int exit_code_for(const RunReport& report) {
  if (report.interrupted != 0) return 128 + report.interrupted;
  bool failed = !report.nothing_checked.empty() || report.time_budget_spent;
  for (const auto& s : report.subjects) {
    if (s.start_failure) return 3;
    if (!s.no_cells.empty()) failed = true;
  }
  for (const auto& r : report.results) {
    if (r.subject_failure() != nullptr) return 3;
    const Status s = r.status();
    if (s == Status::failed || s == Status::error) failed = true;
  }
  return failed ? 1 : 0;
}

}  // namespace pecheck

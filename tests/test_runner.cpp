// The runner's bookkeeping (src/runner/cell.cpp): subject failures are not
// violations and stop the counting, refusals are discards, a violation is
// shrunk and captured, the seed is derived stably.
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <numeric>

#include "pecheck/runner/cell.h"
#include "pecheck/runner/shard.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_runner)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {
// Wraps the reference encoder and misbehaves on a chosen call or input.
class Flaky : public TypedSubject {
 public:
  enum class Mode { break_on_third_call, refuse_large_dims, break_when_failing };
  explicit Flaky(Mode mode) : mode_(mode), inner_(make_subject("builtin:sinusoidal")) {
    info_ = inner_->info();
    info_.spec = cpp_spec("flaky");
  }
  const SubjectInfo& info() const override { return info_; }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    ++calls_;
    if (mode_ == Mode::break_on_third_call && calls_ == 3) throw SubjectFailure("the subject exited", "{}", "", "", "exit 1");
    if (mode_ == Mode::refuse_large_dims && dim > 256) throw Refusal("dim > 256 unsupported");
    Matrix p = ask::encode(*inner_, dim, positions, seq_len);
    // Returns an out-of-range value at position >= 5000, and breaks on the
    // first call after that (i.e. while RapidCheck is shrinking the failure).
    if (mode_ == Mode::break_when_failing) {
      if (failing_) throw SubjectFailure("the subject crashed while shrinking");
      if (positions[0] >= 5000) {
        failing_ = true;
        p(0, 0) = 2;
      }
    }
    return p;
  }
  int calls() const { return calls_; }

 private:
  Mode mode_;
  SubjectPtr inner_;
  SubjectInfo info_;
  int calls_ = 0;
  bool failing_ = false;
};
}  // namespace

BOOST_AUTO_TEST_CASE(a_subject_failure_is_an_error_counting_only_answered_cases) {
  Flaky subject(Flaky::Mode::break_on_third_call);
  const auto r = run_property("pe.bounded", subject);
  BOOST_TEST(name(r.outcome) == "error");
  BOOST_TEST(name(r.status()) == "error");
  BOOST_REQUIRE(r.subject_failure() != nullptr);
  BOOST_TEST(r.subject_failure()->exit_status == "exit 1");
  BOOST_TEST(r.cases == 2);
  BOOST_TEST(subject.calls() == 3);  // no call after the failure
  BOOST_TEST(r.counterexample() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_failure_while_shrinking_is_not_mistaken_for_a_violation) {
  Flaky subject(Flaky::Mode::break_when_failing);
  const auto r = run_property("pe.bounded", subject);
  BOOST_TEST(name(r.outcome) == "error");
  BOOST_REQUIRE(r.subject_failure() != nullptr);
  BOOST_TEST(r.subject_failure()->message == "the subject crashed while shrinking");
}

// A subject that refuses half the widths the gate asks for has not been
// checked there: the cell fails with the range it did check and the flag that
// gates what the subject handles; gated so, it holds.
BOOST_AUTO_TEST_CASE(refusals_are_discards_with_the_reason_reported) {
  Flaky subject(Flaky::Mode::refuse_large_dims);
  const auto r = run_property("pe.bounded", subject);
  BOOST_TEST(name(r.outcome) == "uncovered");
  BOOST_TEST(name(r.status()) == "failed");
  BOOST_TEST(r.cases == 100);
  BOOST_TEST(r.discards > 0);
  BOOST_TEST(r.coverage.refusals.at("dim > 256 unsupported") == r.discards);
  BOOST_TEST(r.coverage.max_width <= 256);
  BOOST_TEST(r.message().find("dim > 256 unsupported") != std::string::npos, r.message());
  BOOST_TEST(r.message().find("--max-width") != std::string::npos, r.message());

  RunOptions gated;
  gated.max_width = 256;
  Flaky within(Flaky::Mode::refuse_large_dims);
  const auto ok = run_property("pe.bounded", within, gated);
  BOOST_TEST(name(ok.outcome) == "holds", ok.message());
  BOOST_TEST(ok.discards == 0);
}

namespace {
// Refuses every position from `limit` on, as a subject whose cos/sin table ends there.
class ShortTable : public TypedSubject {
 public:
  explicit ShortTable(Position limit) : limit_(limit), inner_(make_subject("builtin:rope")) {}
  const SubjectInfo& info() const override { return inner_->info(); }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    for (Position t : positions) {
      if (t >= limit_) throw Refusal("position beyond the cached table");
    }
    return ask::rotate(*inner_, positions, x, seq_len);
  }

 private:
  Position limit_;
  SubjectPtr inner_;
};
}  // namespace

// Issue 8: a table that ends at 2048 refused most inputs and still printed
// "holds" for positions up to 10000. Now the cell fails, naming the range.
BOOST_AUTO_TEST_CASE(a_cell_that_checked_less_than_the_gate_fails_with_the_range_it_checked) {
  ShortTable table(2048);
  const auto r = run_property("rope.norm_preservation", table);
  BOOST_TEST(name(r.outcome) == "uncovered");
  BOOST_TEST(name(r.status()) == "failed");
  BOOST_REQUIRE(r.coverage.max_position.has_value());
  BOOST_TEST(*r.coverage.max_position < 2048);
  BOOST_TEST(r.coverage.position_gate == 10000);
  BOOST_TEST(r.message().find("checked positions only up to") != std::string::npos, r.message());
  BOOST_TEST(r.message().find("--max-position") != std::string::npos, r.message());
  // Gated at what the table holds, the same subject passes.
  RunOptions within;
  within.max_position = 2047;
  BOOST_TEST(name(run_property("rope.norm_preservation", table, within).outcome) == "holds");
  // A property about position 0 alone is not held to the position gate.
  BOOST_TEST(name(run_property("rope.identity_at_zero", table).outcome) == "holds");
}

BOOST_AUTO_TEST_CASE(a_violation_is_shrunk_and_captured_with_its_reproduce_string) {
  // Seed 2: its first failing case is not yet minimal (with seed 1 an edge
  // position, 2, is drawn first and there is nothing left to shrink).
  const auto r = run_property("pe.bounded", "builtin:integer", {.seed = 2});
  BOOST_TEST(name(r.outcome) == "violated");
  BOOST_TEST(r.shrinks > 0);
  BOOST_TEST(!r.reproduce().empty());
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(r.counterexample()->error == 1.0);  // |2| − 1 at t = 2
  // The reproduce string reruns exactly that case.
  RunOptions options;
  options.seed = 2;
  options.reproduce = r.reproduce();
  const auto again = run_property("pe.bounded", "builtin:integer", options);
  BOOST_TEST(name(again.outcome) == "violated");
  BOOST_TEST(again.counterexample()->inputs == r.counterexample()->inputs);
  // The replayed case was judged: one case, and the range it checked (never "0 cases, positions ≤ 2").
  BOOST_TEST(again.cases == 1);
  BOOST_TEST(again.coverage.max_position.has_value());
  BOOST_TEST(coverage_line(again.cases, again.discards, again.coverage).starts_with("1 case, positions ≤ "),
             coverage_line(again.cases, again.discards, again.coverage));
}

namespace {
// Refuses every request, with an empty reason ({"error": ""}).
class RefusesAll : public TypedSubject {
 public:
  RefusesAll() : inner_(make_subject("builtin:sinusoidal")) {}
  const SubjectInfo& info() const override { return inner_->info(); }
  Matrix encode(int, const Positions&, Position) override { throw Refusal(""); }

 private:
  SubjectPtr inner_;
};
}  // namespace

BOOST_AUTO_TEST_CASE(a_cell_that_gives_up_says_what_happened_even_without_a_reason) {
  RefusesAll subject;
  // By default a cell stops on its 100th refusal in a row (i23's streak).
  const auto r = run_property("pe.bounded", subject);
  BOOST_TEST(name(r.outcome) == "error");
  BOOST_TEST(r.cases == 0);
  BOOST_TEST(r.discards == RunOptions{}.refusal_streak);
  BOOST_TEST(r.discard_reason == "(the subject gave no reason)");
  BOOST_TEST(r.coverage.refusals.at("(the subject gave no reason)") == r.discards);
  BOOST_TEST(!r.coverage.max_position.has_value(), "no case was judged: no range was checked");
  const std::string stopped = fmt::format("stopped early: the subject refused {} inputs in a row", r.discards);
  BOOST_TEST(r.message().find(stopped) != std::string::npos, r.message());
  BOOST_TEST(r.message().find("'(the subject gave no reason)' ×") != std::string::npos, r.message());
  BOOST_TEST(r.message().find("''") == std::string::npos, r.message());

  // Without the streak, RapidCheck's own limit ends the search: the text says so as plainly.
  RunOptions no_streak;
  no_streak.refusal_streak = 0;
  const auto all = run_property("pe.bounded", subject, no_streak);
  BOOST_TEST(name(all.outcome) == "error");
  BOOST_TEST(all.cases == 0);
  BOOST_TEST(all.discards > 1000);  // RapidCheck gives up past 10 discards per case asked
  BOOST_TEST(all.discard_reason == "(the subject gave no reason)");
  BOOST_TEST(all.coverage.refusals.at("(the subject gave no reason)") == all.discards);
  const std::string gave_up = fmt::format("gave up: {} inputs discarded with 0 of 100 cases judged", all.discards);
  BOOST_TEST(all.message().starts_with(gave_up), all.message());
  BOOST_TEST(all.message().find("'(the subject gave no reason)' ×") != std::string::npos, all.message());
  BOOST_TEST(all.message().find("gave up: ;") == std::string::npos, all.message());
  BOOST_TEST(all.message().find("e.g. \"\"") == std::string::npos, all.message());
}

BOOST_AUTO_TEST_CASE(seeds_are_derived_stably_per_property_and_subject) {
  BOOST_TEST(derive_seed(1, "pe.bounded", "builtin:sinusoidal") == derive_seed(1, "pe.bounded", "builtin:sinusoidal"));
  BOOST_TEST(derive_seed(1, "pe.bounded", "builtin:sinusoidal") != derive_seed(2, "pe.bounded", "builtin:sinusoidal"));
  BOOST_TEST(derive_seed(1, "pe.bounded", "builtin:sinusoidal") != derive_seed(1, "pe.bounded", "builtin:integer"));
  // Where the checkout lives does not move the draws; which script does.
  BOOST_TEST(derive_seed(1, "pe.bounded", "cmd:python3 /ci/a/enc.py") ==
             derive_seed(1, "pe.bounded", "cmd:python3 /home/me/enc.py"));
  BOOST_TEST(derive_seed(1, "pe.bounded", "cmd:python3 /ci/a/enc.py") !=
             derive_seed(1, "pe.bounded", "cmd:python3 /ci/a/other.py"));
  BOOST_TEST(subject_key("plugin:/opt/x/libp.so") == "plugin:libp.so");
  BOOST_TEST(subject_key("cmd:/usr/bin/python3  -u /w/m/enc.py --fast") == "cmd:python3  -u enc.py --fast");
  BOOST_TEST(subject_key("builtin:sinusoidal") == "builtin:sinusoidal");
  // Pinned: reports from other machines and versions must keep rerunning.
  BOOST_TEST(derive_seed(0, "", "") == 0xe604823a249029bfULL, std::hex << derive_seed(0, "", ""));
}

namespace {
// Records the dims it is asked for.
class DimRecorder : public TypedSubject {
 public:
  DimRecorder() : inner_(make_subject("builtin:sinusoidal")) {}
  const SubjectInfo& info() const override { return inner_->info(); }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    dims.push_back(dim);
    return ask::encode(*inner_, dim, positions, seq_len);
  }
  std::vector<int> dims;

 private:
  SubjectPtr inner_;
};
double mean(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }
}  // namespace

BOOST_AUTO_TEST_CASE(fixed_size_draws_the_full_stated_range_and_the_ramp_starts_small) {
  // pe.bounded draws d = 2h, h in [1, 256]: the full range has mean 257.
  RunOptions ramp, full;
  full.fixed_size = true;
  DimRecorder a, b;
  run_property("pe.bounded", a, ramp);
  run_property("pe.bounded", b, full);
  BOOST_TEST(a.dims.front() == 2);  // RapidCheck's first case is the smallest
  BOOST_TEST(mean(a.dims) < 200);
  BOOST_TEST(mean(b.dims) > 220);
  BOOST_TEST(mean(b.dims) < 300);
}

BOOST_AUTO_TEST_SUITE_END()  // test_runner

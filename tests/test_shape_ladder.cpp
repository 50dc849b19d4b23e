// The shape ladder and per-axis coverage (property/sizes.h, issue 18) and
// declared shapes (SUBJECT-PROTOCOL.md "Declared shapes"): the rungs follow
// the flags and the declarations; every cell reaches its gates on a correct
// subject; a subject that refuses the large shapes is uncovered, naming the
// axis and what sets the gate; declared shapes bound what is sent, and a
// refusal inside them is a subject failure; --max-position bounds every
// sequence; a large witness shrinks to the smallest size that fails.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <memory>
#include <set>

#include "pecheck/property/registry.h"
#include "pecheck/property/sizes.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/planted.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_shape_ladder)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

// A built-in seen through its requests: records them, refuses where told.
class Watched final : public TypedSubject {
 public:
  explicit Watched(const std::string& spec) : inner_(make_subject(spec)), info_(inner_->info()) {}
  SubjectInfo& declare() { return info_; }
  std::function<bool(int width, Position last, Position length)> refuse = {};
  std::set<int> widths;
  Position longest = 0, last_position = 0;

  const SubjectInfo& info() const override { return info_; }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    note(dim, positions, seq_len);
    return ask::encode(*inner_, dim, positions, seq_len);
  }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    note(static_cast<int>(x.cols()), positions, seq_len.value_or(0));
    return ask::rotate(*inner_, positions, x, seq_len);
  }

 private:
  void note(int width, const Positions& positions, Position length) {
    const Position last = positions.empty() ? 0 : *std::max_element(positions.begin(), positions.end());
    if (refuse && refuse(width, last, std::max(length, last + 1))) throw Refusal("not that shape");
    widths.insert(width);
    longest = std::max(longest, length);
    last_position = std::max(last_position, last);
  }
  SubjectPtr inner_;
  SubjectInfo info_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::int64_t> rungs(const SubjectInfo& s, Op op, Axis axis, Position max_position = 10000, int width = 0) {
  return ladder_rungs(s, max_position, width, op, axis).sizes;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rungs_follow_the_flags_and_the_declarations) {
  SubjectInfo s = make_subject("builtin:rope")->info();
  using V = std::vector<std::int64_t>;
  BOOST_TEST(rungs(s, Op::rotate, Axis::width) == (V{64, 80, 96, 128, 256}), boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 10000, 0, Op::rotate, Axis::width).set_by == "the shape ladder's default");
  // --max-width raises the top (d = 512 is sent) or caps it.
  BOOST_TEST(rungs(s, Op::rotate, Axis::width, 10000, 512) == (V{64, 80, 96, 128, 256, 512}),
             boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 10000, 512, Op::rotate, Axis::width).set_by == "--max-width 512");
  BOOST_TEST(rungs(s, Op::rotate, Axis::width, 10000, 100) == (V{64, 80, 96, 100}), boost::test_tools::per_element());
  // --max-position bounds the rows of a request (a sequence of max_position + 1 tokens).
  BOOST_TEST(rungs(s, Op::rotate, Axis::rows, 300) == (V{256, 301}), boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 300, 0, Op::rotate, Axis::rows).set_by == "--max-position 300");
  // A declared list is the rungs; a declared range caps them and ends at its max.
  s.shapes.ops[Op::rotate][ShapeDim::d] = Extent::exactly({128, 64});
  BOOST_TEST(rungs(s, Op::rotate, Axis::width) == (V{64, 128}), boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 10000, 0, Op::rotate, Axis::width).set_by == "params.rotate.shapes.d");
  s.shapes.ops[Op::rotate][ShapeDim::d] = Extent::range(64, 200);
  BOOST_TEST(rungs(s, Op::rotate, Axis::width) == (V{64, 80, 96, 128, 200}), boost::test_tools::per_element());
  BOOST_TEST(gate_setters(Op::rotate, Axis::width) == "declare params.rotate.shapes.d or gate with --max-width");
}

BOOST_AUTO_TEST_CASE(a_correct_rotary_reaches_every_gate_of_the_ladder) {
  const PropertyResult r = run_property("rope.reference_values", "builtin:rope");
  BOOST_TEST(r.held(), r.message());
  BOOST_TEST(r.coverage.ladder_cases == 8);  // 5 widths + 3 row counts
  BOOST_TEST(r.coverage.axes.at(Axis::width).reached == 256);
  BOOST_TEST(r.coverage.axes.at(Axis::width).gate == 256);
  BOOST_TEST(r.coverage.axes.at(Axis::rows).reached == 4096);
  BOOST_TEST(r.coverage.axes.at(Axis::rows).gate == 4096);
  BOOST_TEST(contains(coverage_line(r.cases, r.discards, r.coverage), "width 256 of 256, rows 4096 of 4096"),
             coverage_line(r.cases, r.discards, r.coverage));
}

BOOST_AUTO_TEST_CASE(every_ladder_axis_of_every_property_reaches_its_gate_on_the_claims_matrix_subjects) {
  // One subject per op: each property that scales an axis aims a gate there
  // and its judged cases reach it.
  for (const char* spec : {"builtin:sinusoidal", "builtin:rope", "builtin:attention", "builtin:alibi", "builtin:t5",
                           "builtin:llama-block", "builtin:encoder-layer"}) {
    const auto subject = make_subject(spec);
    for (const auto& p : all_properties()) {
      if (p.impl.axes.empty() || !p.info.applies_to(subject->info())) continue;
      BOOST_TEST_CONTEXT(p.info.id << " on " << spec) {
        const PropertyResult r = run_property(p.info.id, *subject);
        if (r.violation()) continue;  // an expected violation, shown by the search
        BOOST_TEST((r.status() == Status::passed), r.message());
        for (Axis axis : p.impl.axes) {
          if (axis == Axis::heads && !subject->info().multi_head) continue;
          const auto it = r.coverage.axes.find(axis);
          BOOST_TEST_REQUIRE((it != r.coverage.axes.end()), "no coverage of " << name(axis));
          BOOST_TEST(it->second.gate > 0, name(axis) << " has no gate");
          BOOST_TEST(it->second.reached >= it->second.gate, name(axis));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_rotary_refusing_wide_heads_is_uncovered_naming_the_axis_and_what_sets_it) {
  Watched narrow("builtin:rope");
  narrow.refuse = [](int width, Position, Position) { return width > 128; };
  const PropertyResult r = run_property("rope.reference_values", narrow);
  BOOST_TEST((std::holds_alternative<Uncovered>(r.outcome)), r.message());
  BOOST_TEST((r.status() == Status::failed));
  BOOST_TEST(contains(r.coverage.shortfall, "checked width only up to 128 of the gate's 256"), r.coverage.shortfall);
  BOOST_TEST(contains(r.coverage.shortfall, "params.rotate.shapes.d"), r.coverage.shortfall);
  BOOST_TEST(contains(r.coverage.shortfall, "--max-width"), r.coverage.shortfall);
  // Gated where it works, it passes.
  RunOptions gated;
  gated.max_width = 128;
  const PropertyResult g = run_property("rope.reference_values", narrow, gated);
  BOOST_TEST(g.held(), g.message());
  BOOST_TEST(g.coverage.axes.at(Axis::width).gate == 128);
}

BOOST_AUTO_TEST_CASE(declared_widths_are_the_only_ones_sent_and_set_the_gate) {
  Watched fixed("builtin:rope");
  fixed.refuse = [](int width, Position, Position) { return width != 128; };
  fixed.declare().shapes.ops[Op::rotate][ShapeDim::d] = Extent::exactly({128});
  for (const auto& p : all_properties()) {
    if (p.info.op != Op::rotate || !p.info.applies_to(fixed.info())) continue;
    BOOST_TEST_CONTEXT(p.info.id) {
      const PropertyResult r = run_property(p.info.id, fixed);
      BOOST_TEST((r.status() == Status::passed), r.message());
      BOOST_TEST(r.discards == 0, r.discard_reason);
      if (auto it = r.coverage.axes.find(Axis::width); it != r.coverage.axes.end() && it->second.gate > 0) {
        BOOST_TEST(it->second.gate == 128);
        BOOST_TEST(it->second.set_by == "params.rotate.shapes.d");
      }
    }
  }
  BOOST_TEST(fixed.widths == std::set<int>{128}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_refusal_inside_the_declared_shapes_is_a_subject_failure) {
  Watched liar("builtin:rope");
  liar.declare().shapes.ops[Op::rotate][ShapeDim::d] = Extent::exactly({64});
  liar.refuse = [](int, Position last, Position) { return last > 100; };  // its table ends early, undeclared
  const PropertyResult r = run_property("rope.reference_values", liar);
  BOOST_TEST_REQUIRE(r.subject_failure() != nullptr, r.message());
  BOOST_TEST(contains(r.subject_failure()->message, "inside the shapes it declares (params.rotate.shapes: d 64)"),
             r.subject_failure()->message);
  // Declaring the sequence length too, it is judged inside it and passes.
  liar.longest = liar.last_position = 0;
  liar.declare().shapes.ops[Op::rotate][ShapeDim::n] = Extent::range(1, 101);
  const PropertyResult declared = run_property("rope.reference_values", liar);
  BOOST_TEST(declared.held(), declared.message());
  BOOST_TEST(liar.last_position <= 100);
  BOOST_TEST(liar.longest <= 101);
}

BOOST_AUTO_TEST_CASE(max_position_bounds_every_position_of_every_sequence) {
  // A table of 5000 rows gated with --max-position 4999 is sent no sequence
  // longer than 5000 (the Annotated Transformer's default max_len).
  RunOptions options;
  options.max_position = 4999;
  for (const char* spec : {"builtin:sinusoidal", "builtin:rope"}) {
    Watched table(spec);
    table.refuse = [](int, Position last, Position length) { return last >= 5000 || length > 5000; };
    for (const auto& p : all_properties()) {
      if ((p.info.op != Op::encode && p.info.op != Op::rotate) || !p.info.applies_to(table.info())) continue;
      BOOST_TEST_CONTEXT(p.info.id << " on " << spec) {
        const PropertyResult r = run_property(p.info.id, table, options);
        BOOST_TEST((r.status() == Status::passed), r.message());
        BOOST_TEST(r.discards == 0, r.discard_reason);
      }
    }
    BOOST_TEST(table.longest <= 5000);
    BOOST_TEST(table.last_position <= 4999);
  }
}

BOOST_AUTO_TEST_CASE(the_advice_names_the_table_length_the_refusals_show) {
  // Ungated, the 5000-row table is uncovered, and the advice is its length.
  Watched table("builtin:sinusoidal");
  table.refuse = [](int, Position last, Position length) { return last >= 5000 || length > 5000; };
  const PropertyResult r = run_property("pe.reference_values", table);
  BOOST_TEST((std::holds_alternative<Uncovered>(r.outcome)), r.message());
  BOOST_TEST(contains(r.coverage.shortfall, "--max-position 4999"), r.coverage.shortfall);
}

BOOST_AUTO_TEST_CASE(large_witnesses_shrink_to_the_smallest_size_that_fails) {
  const PropertyResult rows = run_property("rope.reference_values", "mutant:region-rope-rows256");
  BOOST_TEST_REQUIRE(rows.counterexample() != nullptr, rows.message());
  BOOST_TEST(rows.counterexample()->inputs["positions"].size() == 256u);
  const PropertyResult wide = run_property("rope.reference_values", "mutant:region-rope-d256");
  BOOST_TEST_REQUIRE(wide.counterexample() != nullptr, wide.message());
  BOOST_TEST(wide.counterexample()->inputs["dim"] == 256);
  BOOST_TEST(wide.counterexample()->inputs["positions"].size() == 1u);
  const PropertyResult keys = run_property("attention.convex_combination", "mutant:region-attention-tokens64");
  BOOST_TEST_REQUIRE(keys.counterexample() != nullptr, keys.message());
  const auto n = keys.counterexample()->inputs["q"].size(), m = keys.counterexample()->inputs["k"].size();
  BOOST_TEST((std::max(n, m) == 64u), n << "×" << m);
  const PropertyResult drift = run_property("history_independence", "mutant:region-module-drift50");
  BOOST_TEST_REQUIRE(drift.counterexample() != nullptr, drift.message());
  BOOST_TEST(drift.counterexample()->inputs.size() == 51u);  // 50 requests, then the one that drifted
}

BOOST_AUTO_TEST_CASE(a_ladder_witness_replays_from_its_reproduce_string) {
  const PropertyResult first = run_property("rope.reference_values", "mutant:region-rope-d128");
  BOOST_TEST_REQUIRE(first.counterexample() != nullptr, first.message());
  BOOST_TEST(first.reproduce().size() > 0u);
  RunOptions again;
  again.reproduce = first.reproduce();
  const PropertyResult replayed = run_property("rope.reference_values", "mutant:region-rope-d128", again);
  BOOST_TEST_REQUIRE(replayed.counterexample() != nullptr, replayed.message());
  BOOST_TEST(replayed.counterexample()->inputs == first.counterexample()->inputs);
}

BOOST_AUTO_TEST_CASE(declared_shapes_are_read_from_a_declaration_and_refused_when_malformed) {
  SubjectInfo info = make_subject("builtin:rope")->info();
  apply_declarations(json::parse(R"({"params": {"rotate": {"shapes": {"d": 128, "n": {"max": 4096}}}}})"), info);
  BOOST_TEST_REQUIRE(info.shapes.find(Op::rotate, ShapeDim::d) != nullptr);
  BOOST_TEST(info.shapes.find(Op::rotate, ShapeDim::d)->values == std::vector<std::int64_t>{128},
             boost::test_tools::per_element());
  BOOST_TEST(*info.shapes.find(Op::rotate, ShapeDim::n)->largest() == 4096);
  BOOST_TEST(info.shapes.describe(Op::rotate) == "d 128, n 1..4096");
  for (const char* bad : {R"({"params": {"rotate": {"shapes": {"q": 128}}}})",
                          R"({"params": {"rotate": {"shapes": {"d": 0}}}})",
                          R"({"params": {"rotate": {"shapes": {"d": []}}}})",
                          R"({"params": {"rotate": {"shapes": {"d": {"min": 8, "max": 4}}}}})",
                          R"({"params": {"rotate": {"shapes": {"d": {"least": 8}}}}})",
                          R"({"params": {"attention": {"shapes": {"n": 4}}}})"}) {
    BOOST_TEST_CONTEXT(bad) {
      SubjectInfo copy = make_subject("builtin:rope")->info();
      BOOST_CHECK_THROW(apply_declarations(json::parse(bad), copy), BadDeclaration);
    }
  }
}

BOOST_AUTO_TEST_CASE(history_option_asks_for_a_longer_script_and_gates_there) {
  // Issue 39: state that drifts after 300 requests was green with "history 256 of 256", and no
  // option could ask for more. --history N adds a script of N requests and gates the cell there.
  using namespace pecheck::testing::process_cli;
  const std::string subject = python_subject("tests/subjects/drifts_after.py", "300");
  const std::vector<std::string> base = {"--subject", subject, "--properties", "history_independence", "--cases", "30"};
  const Run ladder = run_pecheck(base, 120);
  BOOST_TEST(ladder.exit_code == 0, ladder.console);  // honestly so: the ladder's longest script is 256
  BOOST_TEST(ladder.console.find("history 256 of 256") != std::string::npos, ladder.console);
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_pecheck(args, 120);
  };
  const Run longer = with({"--history", "400"});
  BOOST_TEST(longer.exit_code == 1, longer.console);
  const json* r = longer.result("history_independence");
  BOOST_TEST_REQUIRE(r != nullptr, longer.console);
  BOOST_TEST((*r)["status"] == "failed");
  BOOST_TEST((*r)["coverage"]["axes"]["history"]["gate"] == 400);
  BOOST_TEST((*r)["coverage"]["axes"]["history"]["set_by"] == "--history 400");
  BOOST_TEST(longer.report["history"] == 400);
  // The console cuts a counterexample of 301 requests (the file holds it whole).
  BOOST_TEST(longer.console.find("the counterexample file holds them whole") != std::string::npos, longer.console);
  for (const char* bad : {"0", "4097", "many"}) {
    const Run refused = with({"--history", bad});
    BOOST_TEST(refused.exit_code == 2, bad << ": " << refused.console);
  }
}

// Issue 36: a declared session length above the ladder's top raises it there,
// and a module's declared window asks W + 1 tokens of its gate, which stays
// there where the declaration or a flag stops short of it.
BOOST_AUTO_TEST_CASE(declared_lengths_and_windows_raise_the_gates) {
  using V = std::vector<std::int64_t>;
  SubjectInfo s = make_subject("builtin:llama-block")->info();
  BOOST_TEST(rungs(s, Op::forward, Axis::tokens) == (V{16, 32, 64, 256}), boost::test_tools::per_element());
  s.shapes.ops[Op::forward][ShapeDim::n] = Extent::range(1, 4100);
  BOOST_TEST(rungs(s, Op::decode, Axis::tokens) == (V{16, 32, 64, 256, 4100}), boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 10000, 0, Op::decode, Axis::tokens).set_by == "params.forward.shapes.n");
  // --max-position below the declared length caps it, and says so.
  BOOST_TEST(rungs(s, Op::forward, Axis::tokens, 2999) == (V{16, 32, 64, 256, 3000}), boost::test_tools::per_element());
  BOOST_TEST(ladder_rungs(s, 2999, 0, Op::forward, Axis::tokens).set_by == "--max-position 2999");
  // A declared width above the top does not raise the widths (issue 39 searches from the smallest).
  s.shapes.ops[Op::forward].erase(ShapeDim::n);

  s.forward->attention.window = 300;
  const Rungs windowed = ladder_rungs(s, 10000, 0, Op::decode, Axis::tokens);
  BOOST_TEST(windowed.sizes == (V{16, 32, 64, 256, 301}), boost::test_tools::per_element());
  BOOST_TEST(windowed.gate_floor == 301);
  BOOST_TEST(contains(windowed.gate_floor_by, "params.forward.window 300"), windowed.gate_floor_by);
  // A layer's window counts too; the largest wins.
  s.forward->layers.resize(2);
  s.forward->layers[1].chunk = 512;
  BOOST_TEST(ladder_rungs(s, 10000, 0, Op::forward, Axis::tokens).gate_floor == 513);
  s.forward->layers.clear();
  // Sessions declared shorter than the window: the rungs stop at 200, the gate stays at 301 (uncovered).
  s.shapes.ops[Op::forward][ShapeDim::n] = Extent::range(1, 200);
  const Rungs short_sessions = ladder_rungs(s, 10000, 0, Op::forward, Axis::tokens);
  BOOST_TEST(short_sessions.sizes.back() == 200);
  BOOST_TEST(short_sessions.gate_floor == 301);
  // Windows within the ladder ask nothing more (the built-ins' W = 4), and attention's are not read here.
  s.shapes.ops[Op::forward].erase(ShapeDim::n);
  s.forward->attention.window = 4;
  BOOST_TEST(ladder_rungs(s, 10000, 0, Op::forward, Axis::tokens).gate_floor == 0);
  SubjectInfo a = make_subject("builtin:attention")->info();
  a.attention.window = 4096;
  BOOST_TEST(ladder_rungs(a, 10000, 0, Op::attention, Axis::keys).gate_floor == 0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_shape_ladder

// Issue 23, a user's first hour, the harness side: a subject that refuses
// nearly every input stops its cell early, its refusals grouped and the
// declaration that fixes it named; the time budget; --jobs starting no more
// subject instances than cells can use; declarations written in pecheck.toml
// reported at their file and line; transformers' scaling dicts; the
// query/key alignment of a bias; positions derived from the padding;
// witnesses people can read.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "pecheck/config/config_file.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/witness.h"
#include "pecheck/runner/session.h"
#include "pecheck/subjects/builtin/rope.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "runner/instance_pool.h"
#include "runner/refusals.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_first_hour)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

// A rotary built for one head width, refusing every other (a PyTorch module built for head_dim=128).
class FixedWidthRope final : public RopeSubject {
 public:
  FixedWidthRope()
      : RopeSubject(rope_info("fixed-width", builtin_spec("fixed-width"), Layout::interleaved, Dtype::float64)) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    ++calls;
    if (x.cols() != 128) throw Refusal(fmt::format("ValueError: built for head_dim=128, got {}", x.cols()));
    return RopeSubject::rotate(positions, x, seq_len);
  }
  std::atomic<int> calls{0};
};

std::vector<std::string> property_ids() {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) ids.push_back(p.info.id);
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_CASE(refusal_reasons_group_by_their_words) {
  RefusalLog log;
  for (int d : {64, 32, 64, 2}) log.refused(fmt::format("ValueError: built for head_dim=128, got {}", d));
  log.refused("odd d");
  BOOST_TEST(log.total() == 5);
  BOOST_TEST(log.streak() == 5);
  BOOST_TEST(log.kinds().size() == 2u);
  BOOST_TEST(log.kinds().at("ValueError: built for head_dim=128, got 64") == 4);
  BOOST_TEST(log.grouped() == "'ValueError: built for head_dim=128, got 64' ×4 (this and 2 more like it with other "
                              "numbers), 'odd d' ×1");
  log.answered();
  BOOST_TEST(log.streak() == 0);
  BOOST_TEST(ranges_text({2, 4, 6, 8, 130, 132, 200}) == "2–8, 130–132, 200");
}

BOOST_AUTO_TEST_CASE(a_fixed_width_rotary_stops_early_naming_the_declaration) {
  FixedWidthRope subject;
  const auto r = run_property("rope.norm_preservation", subject);
  const auto* gave_up = std::get_if<GaveUp>(&r.outcome);
  BOOST_REQUIRE_MESSAGE(gave_up != nullptr, r.message());
  BOOST_TEST((r.status() == Status::error));
  BOOST_TEST(gave_up->reason.find("stopped early: the subject refused 100 inputs in a row") != std::string::npos,
             gave_up->reason);
  BOOST_TEST(gave_up->reason.find("params.rotate.shapes") != std::string::npos, gave_up->reason);
  BOOST_TEST(gave_up->reason.find("--max-width") != std::string::npos, gave_up->reason);
  BOOST_TEST(gave_up->reason.find("more like it with other numbers") != std::string::npos, gave_up->reason);
  // RapidCheck alone would have tried 10 × 100 discards; the streak stops at 100.
  BOOST_TEST(r.discards >= 100);
  BOOST_TEST(subject.calls.load() < 200, subject.calls.load());
  BOOST_TEST(coverage_line(r.cases, r.discards, r.coverage).find("refused (100%)") != std::string::npos,
             coverage_line(r.cases, r.discards, r.coverage));
}

namespace {

// A rotary that takes 40 ms an answer: 100 cases of one property take several seconds.
class SlowRope final : public RopeSubject {
 public:
  SlowRope() : RopeSubject(rope_info("slow", builtin_spec("slow"), Layout::interleaved, Dtype::float64)) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    return RopeSubject::rotate(positions, x, seq_len);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_cell_slower_than_expected_says_so_while_it_runs) {
  SlowRope subject;
  pecheck::testing::QuickRun options;
  options.slow_cell_seconds = 2;  // 100 cases at 40 ms: about 4 s, so it is slow
  std::vector<std::string> notes;
  std::vector<double> when;
  options.progress = [&](const CellProgress& p) {
    if (!p.slow.empty()) {
      notes.emplace_back(p.slow);
      when.push_back(p.seconds);
    }
  };
  const auto r = run_property("rope.norm_preservation", subject, options);
  BOOST_TEST((r.status() == Status::passed), r.message());
  BOOST_REQUIRE_EQUAL(notes.size(), 1u);  // said once
  BOOST_TEST(notes[0].find("rope.norm_preservation is slow: ") != std::string::npos, notes[0]);
  BOOST_TEST(notes[0].find("at this rate") != std::string::npos, notes[0]);
  BOOST_TEST(when[0] < r.seconds);  // while it ran
}

BOOST_AUTO_TEST_CASE(a_spent_time_budget_stops_the_run_which_fails_saying_so) {
  RunOptions options;
  options.subjects = {"builtin:rope"};
  options.properties = {"rope.*"};
  options.cases = 10000000;  // far more than the budget allows
  options.time_budget = 0.5;
  options.regressions = false;
  options.jobs = 1;
  Plan p = plan(options);
  MulticastObserver none;
  const auto started = std::chrono::steady_clock::now();
  const RunReport report = run(p, none);
  BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() < 10);
  BOOST_TEST(report.time_budget_spent);
  BOOST_TEST(report.exit_code == 1);
  BOOST_REQUIRE(!report.results.empty());
  BOOST_TEST(report.results.front().message().find("time budget (0.5 s) was spent") != std::string::npos,
             report.results.front().message());
}

BOOST_AUTO_TEST_CASE(jobs_share_instances_and_start_another_only_when_waiting_costs_a_start) {
  FixedWidthRope planned;
  int starts = 0;
  auto start = [&starts]() -> SubjectPtr {
    ++starts;
    return std::make_unique<FixedWidthRope>();
  };
  {
    // Starting costs 10 s: a second cell waits for the first's instance instead.
    InstancePool pool(&planned, 10);
    Subject* first = pool.acquire(start);
    BOOST_TEST(first == &planned);
    std::thread release([&pool, first] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      pool.release(first, false);
    });
    Subject* second = pool.acquire(start);
    release.join();
    BOOST_TEST(second == &planned);
    BOOST_TEST(starts == 0);
    pool.release(second, false);
  }
  {
    // Starting costs nothing: a busy instance makes the second cell start its own.
    InstancePool pool(&planned, 0);
    Subject* first = pool.acquire(start);
    Subject* second = pool.acquire(start);
    BOOST_TEST(first == &planned);
    BOOST_TEST(second != &planned);
    BOOST_TEST(starts == 1);
    pool.release(second, true);  // broken: not handed out again
    pool.release(first, false);
    BOOST_TEST(pool.acquire(start) == &planned);
    BOOST_TEST(pool.started() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(a_declaration_in_pecheck_toml_is_reported_at_its_file_and_line) {
  const std::string text =
      "properties = \"rope.*\"\n"
      "[subject.\"builtin:rope\"]\n"
      "params.rotate.base = \"10k\"\n";
  const FileConfig f = parse_config(text, "pecheck.toml", property_ids());
  RunOptions options;
  for (const auto& [spec, d] : f.subject_declarations) {
    options.declarations[spec] = d.declared;
    options.declaration_lines[spec] = d.lines;
    options.declaration_lines[spec][""] = d.where;
  }
  try {
    make_subject_for(builtin_spec("rope"), options);
    BOOST_FAIL("a base of \"10k\" was accepted");
  } catch (const BadDeclaration& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("pecheck.toml:3: subject.\"builtin:rope\".params.rotate.base: params.rotate.base must be a "
                         "finite number > 0, got \"10k\" (a string: write the number itself") != std::string::npos,
               what);
  }
  options.declarations["builtin:rope"] = json{{"params", {{"rotate", {{"bsae", 10000}}}}}};
  options.declaration_lines["builtin:rope"] = {{"params.rotate.bsae", "pecheck.toml:7"}};
  try {
    make_subject_for(builtin_spec("rope"), options);
    BOOST_FAIL("a typo'd key was accepted");
  } catch (const BadDeclaration& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("pecheck.toml:7: subject.\"builtin:rope\".params.rotate.bsae: params.rotate.bsae: a field "
                         "pecheck does not know") != std::string::npos, what);
    BOOST_TEST(what.find("did you mean base?") != std::string::npos, what);
    BOOST_TEST(what.find("the subject declares") == std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(config_mistakes_name_the_fix) {
  const std::string both =
      "subject = \"cmd:python3 my_rope.py\"\n\n"
      "[subject.\"cmd:python3 my_rope.py\"]\n"
      "dtype = \"float32\"\n";
  try {
    parse_config(both, "pecheck.toml", property_ids());
    BOOST_FAIL("subject given twice was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("pecheck.toml:3: subject: `subject = …` (line 1) and a [subject.\"SPEC\"] table (line 3) "
                         "cannot both be given") != std::string::npos, what);
    BOOST_TEST(what.find("cmcmd") == std::string::npos, what);
  }
  try {
    parse_config("propertis = \"rope.*\"\n", "pecheck.toml", property_ids());
    BOOST_FAIL("a typo'd key was accepted");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()).find("pecheck.toml:1: propertis: unknown key; did you mean properties?") !=
                   std::string::npos, e.what());
  }
  try {
    parse_config("properties = \"rope.refrence*\"\n", "pecheck.toml", property_ids());
    BOOST_FAIL("a glob matching nothing was accepted");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()).find("'rope.refrence*' matches no property") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(transformers_scaling_dicts_are_read_as_written) {
  const SubjectInfo plain = make_subject("builtin:rope")->info();
  auto declared = [&plain](const json& rotate) {
    SubjectInfo info = plain;
    apply_declarations(json{{"params", {{"rotate", rotate}}}}, info);
    return info.rotate;
  };
  const auto llama3 = declared({{"scaling", {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                                             {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}}}});
  BOOST_TEST((llama3.scaling.type == ScalingType::llama3));
  BOOST_TEST(llama3.scaling.original_max_position == 8192);
  const auto dynamic = declared({{"scaling", {{"type", "dynamic"}, {"factor", 2.0},
                                              {"original_max_position_embeddings", 2048}}}});
  BOOST_TEST((dynamic.scaling.type == ScalingType::dynamic_ntk));
  const auto parameters = declared({{"scaling", {{"rope_type", "default"}, {"rope_theta", 500000.0}}}});
  BOOST_TEST((parameters.scaling.type == ScalingType::none));
  BOOST_TEST(parameters.base == 500000.0);
  BOOST_CHECK_THROW(declared({{"scaling", {{"rope_type", "linear"}, {"type", "ntk"}, {"factor", 2.0}}}}),
                    BadDeclaration);
  BOOST_CHECK_THROW(declared({{"base", 10000.0}, {"scaling", {{"rope_type", "default"}, {"rope_theta", 5e5}}}}),
                    BadDeclaration);
  try {
    declared({{"scaling", {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 4096},
                           {"beta_fst", 32.0}}}});  // mscale is DeepSeek's, read since issue 21: a typo is unknown
    BOOST_FAIL("an unknown scaling key was accepted");
  } catch (const BadDeclaration& e) {
    BOOST_TEST(e.field == "params.rotate.scaling.beta_fst");
    BOOST_TEST(std::string(e.what()).find("beta_fast") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_bias_aligned_bottom_right_passes_when_it_says_so) {
  const json bottom_right = {{"params", {{"bias", {{"scheme", "alibi"}, {"heads", 8}, {"alignment", "bottom_right"}}}}}};
  for (const char* id : {"bias.offset_only", "bias.reference_values", "bias.monotone_decay"}) {
    BOOST_TEST_CONTEXT(id) {
      auto declared = with_declarations(make_subject("mutant:alibi-aligned-to-last-key"), bottom_right);
      const auto r = run_property(id, *declared);
      BOOST_TEST((r.status() == Status::passed), r.message());
    }
  }
  // Undeclared, the same bias fails naming the declaration.
  const auto r = run_property("bias.reference_values", "mutant:alibi-aligned-to-last-key");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(r.counterexample()->diagnosis.find("declare params.bias.alignment = \"bottom_right\"") !=
                 std::string::npos, r.counterexample()->diagnosis);
}

namespace {

// A module that derives its positions from the padding as transformers does when position_ids is None:
// the positions it is given are replaced by those the padding implies.
class PositionsFromPadding final : public TypedSubject {
 public:
  PositionsFromPadding(SubjectPtr inner, bool declare) : inner_(std::move(inner)), info_(inner_->info()) {
    if (declare) info_.forward->positions = PositionsSource::from_padding;
  }
  const SubjectInfo& info() const override { return info_; }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    std::vector<Positions> implied(x.size());
    for (size_t b = 0; b < x.size(); ++b) {
      Position next = 0;
      for (Eigen::Index r = 0; r < x[b].rows(); ++r) {
        const bool real = padding.size() == 0 || padding(static_cast<Eigen::Index>(b), r);
        implied[b].push_back(real ? next++ : 0);
      }
    }
    (void)positions;
    return ask::forward(*inner_, x, implied, padding);
  }

 private:
  SubjectPtr inner_;
  SubjectInfo info_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(positions_from_the_padding_are_moved_with_their_tokens) {
  PositionsFromPadding undeclared(make_subject("builtin:learned-encoder"), false);
  const auto missed = run_property("module.absolute_position_sensitivity", undeclared);
  BOOST_TEST((missed.status() == Status::failed));
  BOOST_TEST(missed.message().find("expected a violation; none found in 100 cases") != std::string::npos,
             missed.message());
  BOOST_TEST(missed.message().find("params.forward.positions = \"from_padding\"") != std::string::npos,
             missed.message());

  PositionsFromPadding declared(make_subject("builtin:learned-encoder"), true);
  const auto found = run_property("module.absolute_position_sensitivity", declared);
  BOOST_TEST((found.status() == Status::passed), found.message());
  BOOST_REQUIRE(found.counterexample() != nullptr);
  BOOST_TEST(found.counterexample()->note.find("positions from the padding (declared)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(witnesses_read_without_runs_of_zeros) {
  const json value = {{"x", {{0, 0, 0, 0, 0, 1.5, 0}, {0.0, 0.0}}}, {"dim", 7}};
  BOOST_TEST(readable(value) == "{\"dim\":7,\"x\":[[0 ×5,1.5,0],[0.0,0.0]]}");
}

BOOST_AUTO_TEST_CASE(a_passing_cells_note_reads_as_the_closest_case_within_its_bound) {
  pecheck::testing::QuickRun options;
  const auto r = run_property("rope.distinct_positions", "builtin:rope@float16", options);
  BOOST_REQUIRE_MESSAGE(r.status() == Status::passed, r.message());
  BOOST_REQUIRE(!r.note().empty());
  const std::string line = progress_line(r);
  BOOST_TEST(line.find("\n       held; closest to its bound: positions ") != std::string::npos, line);
  BOOST_TEST(line.find("not judged") == std::string::npos, line);
}

BOOST_AUTO_TEST_SUITE_END()  // test_first_hour

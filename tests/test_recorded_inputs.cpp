// Recorded inputs (counterexample files, regression-store entries) are
// validated before use by the same definition every property's generator
// satisfies (properties/input_checks.h, read_input in property.h): the
// reproductions of issue 12 — heads 0 (SIGFPE), a permutation index out of
// range, an empty matrix (out-of-bounds reads), dim 1.5 read as 1, dim 1e9
// (gigabytes), seq_len −1, position −1e300, an empty fit — each end in an
// InvalidInput naming the field; replay exits 2 naming the file and field; a
// regression store holding such an entry skips it with a warning and the run
// goes on.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <set>

#include "pecheck/property/registry.h"
#include "pecheck/runner/session.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_recorded_inputs)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

struct Drawn {
  std::string subject;
  std::vector<json> inputs;
};

// Per property, the first built-in of the claims matrix it applies to (or,
// for the claims of a model config, which no matrix column declares, the
// built-ins declared by a config alone), and `count` generated inputs for it
// (each validated as it is drawn).
const std::map<std::string, Drawn>& drawn_inputs() {
  static const std::map<std::string, Drawn> drawn = [] {
    std::map<std::string, Drawn> out;
    RunOptions matrix, configs;
    matrix.regressions = configs.regressions = false;
    configs.subjects = {"builtin:gemma3-config-block", "builtin:llama4-config-block", "builtin:rope-config-linear"};
    for (const RunOptions& options : {matrix, configs}) {
      Plan plan = pecheck::plan(options);
      for (auto& planned : plan.subjects) {
        if (!planned.subject) continue;
        for (const PropertyDef* property : planned.properties) {
          if (out.count(property->info.id) > 0 || property->info.id == "history_independence") continue;
          const GenContext ctx{planned.subject->info(), options.max_position, 0};
          const rc::Gen<DrawnPtr> inputs = property->impl.draw(ctx);
          Drawn d{format_spec(planned.spec), {}};
          // Each drawn input, as reports record it, goes through the property's
          // recorded-input validation instead of being measured.
          for (int i = 0; i < 40; ++i) {
            json last;
            try {
              last = inputs(rc::Random(1000 + static_cast<std::uint64_t>(i)), i % 100).value()->inputs();
              property->impl.validate(last);
            } catch (const InvalidInput& e) {
              BOOST_ERROR(property->info.id << " on " << format_spec(planned.spec) << ": a generated input fails its own validation: "
                                            << e.what() << "\n" << last.dump());
              continue;
            } catch (const rc::GenerationFailure&) {
              continue;  // a generator that could not satisfy its filter at this size
            }
            d.inputs.push_back(std::move(last));
          }
          out[property->info.id] = std::move(d);
        }
      }
    }
    return out;
  }();
  return drawn;
}

// The first drawn input of `property`, with `field` (a JSON pointer) set to `value`.
json mutated(const std::string& property, const std::string& field, const json& value) {
  const auto& d = drawn_inputs().at(property);
  BOOST_REQUIRE(!d.inputs.empty());
  json j = d.inputs.front();
  j[json::json_pointer(field)] = value;
  return j;
}

// The message InvalidInput gives for `inputs`, or "" when they pass.
std::string refusal(const std::string& property, const json& inputs) {
  try {
    find_property(property)->impl.validate(inputs);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(every_generated_input_passes_its_own_validation) {
  const auto& drawn = drawn_inputs();
  int properties = 0;
  for (const auto& row : all_properties()) {
    BOOST_TEST(static_cast<bool>(row.impl.validate), row.info.id << " has no recorded-input validation");
    if (row.info.id == "history_independence") continue;
    const auto it = drawn.find(row.info.id);
    BOOST_TEST_REQUIRE((it != drawn.end()), row.info.id << " applies to no built-in: its generator went unchecked");
    BOOST_TEST(it->second.inputs.size() >= 20u, row.info.id << " drew " << it->second.inputs.size() << " inputs");
    ++properties;
  }
  BOOST_TEST(properties > 40);
}

BOOST_AUTO_TEST_CASE(the_reproductions_are_refused_naming_the_field) {
  // Each: property, field, value, a word the message must hold.
  const std::vector<std::tuple<std::string, std::string, json, std::string>> bad = {
      {"attention.permutation_equivariance", "/heads", 0, "heads"},
      {"attention.permutation_equivariance", "/heads", json(std::uint64_t{1} << 63), "heads"},
      {"attention.permutation_equivariance", "/permutation/0", 1000000000, "permutation"},
      {"attention.permutation_equivariance", "/x", json::array(), "x"},
      {"attention.kv_permutation_invariance", "/k", json::array({json::array()}), "k"},
      {"attention.logit_decomposition", "/w_k", json::array(), "w_k"},
      {"pe.bounded", "/dim", 1.5, "/dim"},
      {"pe.bounded", "/dim", 1e9, "dim"},
      {"pe.bounded", "/seq_len", -1, "seq_len"},
      {"pe.bounded", "/position", -1e300, "/position"},
      // Floats beyond every integer, refused before any conversion (which would be undefined behaviour).
      {"pe.bounded", "/dim", 1e10, "/dim"},
      {"attention.permutation_equivariance", "/permutation/0", 1.8e20, "permutation"},
      {"module.absolute_position_sensitivity", "/permutations/0/0", -9.3e18, "permutation"},
      {"pe.offset_only_dot", "/offset", -3, "offset"},
      {"pe.linear_shift", "/fit", json::array(), "fit"},
      {"pe.linear_shift", "/held", json::array({-1}), "held"},
      {"combine.add_injective", "/token_dim", 0, "token_dim"},
      {"rope.norm_preservation", "/dim", 1 << 20, "dim"},
      {"rope.composition", "/second", std::int64_t{1} << 50, "second"},
      {"module.absolute_position_sensitivity", "/permutations/0/0", 1000000000, "permutation"},
  };
  for (const auto& [property, field, value, word] : bad) {
    const std::string why = refusal(property, mutated(property, field, value));
    BOOST_TEST(!why.empty(), property << field << " = " << value.dump() << " was accepted");
    BOOST_TEST(has(why, word), property << field << ": " << why);
  }
  // The unmutated inputs pass: the refusals are the mutations'.
  for (const auto& [property, field, value, word] : bad) {
    BOOST_TEST(refusal(property, drawn_inputs().at(property).inputs.front()).empty(), property);
  }
}

BOOST_AUTO_TEST_CASE(a_huge_value_in_a_floating_point_field_is_read_as_it_is) {
  // The check for floats beyond every integer looks only at integer fields.
  const std::string why = refusal("attention.permutation_equivariance",
                                  mutated("attention.permutation_equivariance", "/x/0/0", 1e300));
  BOOST_TEST(!has(why, "takes integers"), why);
}

BOOST_AUTO_TEST_CASE(replay_exits_2_naming_the_file_and_field_and_the_store_skips_the_entry) {
  const std::string dir = temp_dir("pecheck-recorded");
  auto r = run_cli({"run", "--subject", "builtin:integer", "--properties", "pe.bounded", "--cases", "20",
                    "--no-regressions", "--report-dir", dir + "/reports"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string file = dir + "/reports/counterexamples/pe.bounded--builtin_integer.json";
  json record = json::parse(read_file(file));
  record["counterexample"]["inputs"]["dim"] = 1000000000;
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << record.dump(2);

  const auto replay = run_cli({"replay", bad});
  BOOST_TEST(replay.exit_code == 2, replay.output);
  BOOST_TEST(has(replay.output, bad), replay.output);
  BOOST_TEST(has(replay.output, "dim: expected a width from 1 to 65536, got 1000000000"), replay.output);

  // In the regression store: skipped with a warning and reported; the run goes on and passes.
  unsetenv("PECHECK_NO_REGRESSIONS");  // the test environment turns the store off for other tests
  const std::string store = dir + "/store";
  std::filesystem::create_directories(store);
  std::ofstream(store + "/pe.bounded--builtin_integer--bad.json") << record.dump(2);
  const auto run = run_cli({"run", "--subject", "builtin:integer", "--properties", "pe.bounded", "--cases", "20",
                            "--regression-dir", store, "--report-dir", dir + "/again"});
  BOOST_TEST(run.exit_code == 0, run.output);
  BOOST_TEST(has(run.output, "skipping unreadable regression entry"), run.output);
  BOOST_TEST(has(run.output, "dim: expected a width"), run.output);
  const json report = json::parse(read_file(dir + "/again/report.json"));
  BOOST_TEST(report.dump().find("do not fit pe.bounded") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_recorded_inputs

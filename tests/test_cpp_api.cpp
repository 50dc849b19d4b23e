// The in-process C++ interface (include/pecheck/cpp/implementation.h and
// check.h, include/pecheck/boost_test.h): which properties a C++ subject
// gets, the failure text, the Boost.Test registration, and the examples
// (examples/cpp): the correct encoder's test passes, the planted bug's test
// fails naming the property, and its printed rerun line reproduces the failure.
#include <boost/test/unit_test.hpp>
#include <pecheck/boost_test.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

BOOST_AUTO_TEST_SUITE(test_cpp_api)

using namespace pecheck;
using namespace pecheck::cpp;

namespace {

struct Shell {
  int exit_code = -1;
  std::string output;
};

Shell run_shell(const std::string& command) {
  Shell r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Sinusoid : public Encoder {
 public:
  explicit Sinusoid(double amplitude = 1.0)
      : Encoder({.name = "test-sinusoid", .layout = Layout::interleaved}), amplitude_(amplitude) {}
  void encode_row(int dim, Position t, Position, std::span<double> row) override {
    if (dim % 2 != 0) throw Refusal("dim must be even");
    for (int i = 0; i < dim / 2; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / dim);
      row[2 * i] = amplitude_ * std::sin(static_cast<double>(t) * w);
      row[2 * i + 1] = amplitude_ * std::cos(static_cast<double>(t) * w);
    }
  }

 private:
  double amplitude_;
};

class Identity : public Rotary {
 public:
  Identity() : Rotary({.name = "identity"}) {}
  void rotate_row(Position, std::span<const double> x, std::span<double> out) override {
    std::copy(x.begin(), x.end(), out.begin());
  }
};

std::set<std::string> ids(const PlannedSubject& planned) {
  std::set<std::string> out;
  for (const auto* p : planned.properties) out.insert(p->info.id);
  return out;
}

}  // namespace

// Registered like a user would: this module gains the suite below.
PECHECK_BOOST_TEST_SUBJECT_WITH(registered_sinusoid, (CheckOptions{.properties = {"pe.bounded", "pe.constant_norm"}}),
                                std::make_unique<Sinusoid>())

BOOST_AUTO_TEST_CASE(registration_made_one_case_per_property) {
  namespace utf = boost::unit_test;
  // The registration opens its suite where it stands: inside this file's suite.
  const auto& file = utf::framework::get<utf::test_suite>(utf::framework::master_test_suite().get("test_cpp_api"));
  auto& suite = utf::framework::get<utf::test_suite>(file.get("registered_sinusoid"));
  BOOST_TEST(suite.size() == 2u);
  BOOST_TEST(suite.get("pe.bounded") != boost::unit_test::INV_TEST_UNIT_ID);
  BOOST_TEST(suite.get("pe.constant_norm") != boost::unit_test::INV_TEST_UNIT_ID);
}

// The registration above planned at static initialisation, which built the
// property registry then, before other files' namespace-scope objects were
// initialised (their order is unspecified): the attention claims were built
// with the empty axis lists of properties/attention/support.h, skipped their
// shape ladders and passed size-dependent bugs (a planted one wrong only from
// 32 tokens on) in every executable that registered a subject this way.
BOOST_AUTO_TEST_CASE(a_registry_built_during_static_initialisation_keeps_every_ladder) {
  for (const auto& p : pecheck::all_properties()) {
    if (p.info.id.rfind("attention.", 0) == 0 && p.info.id.find("permutation") != std::string::npos)
      BOOST_TEST(!p.impl.axes.empty(), p.info.id);
  }
  const auto* convex = pecheck::find_property("attention.convex_combination");
  BOOST_REQUIRE(convex != nullptr);
  BOOST_TEST(convex->impl.axes.size() == 4u);
}

BOOST_AUTO_TEST_CASE(the_plan_follows_the_ops_and_the_profile) {
  const PlannedSubject plan_for_encoder = plan(std::make_unique<Sinusoid>(), {});
  BOOST_TEST(plan_for_encoder.profile->name == "sinusoidal");
  BOOST_TEST(ids(plan_for_encoder).count("pe.step_size") == 1u);
  for (const auto& id : ids(plan_for_encoder)) BOOST_TEST(id.rfind("pe.", 0) == 0u, id);
  for (const auto& id : ids(plan(std::make_unique<Identity>(), {}))) BOOST_TEST(id.rfind("rope.", 0) == 0u, id);
  BOOST_TEST((ids(plan(std::make_unique<Sinusoid>(), {.profile = "absolute"})) ==
              std::set<std::string>{"pe.length_independence", "pe.distinct_positions"}));
  BOOST_CHECK_THROW(plan(std::make_unique<Sinusoid>(), {.profile = "sinusiodal"}), PlanError);
}

BOOST_AUTO_TEST_CASE(a_planted_bug_fails_with_readable_text) {
  // Amplitude 1.5 instead of 1: outside [-1, 1].
  PlannedSubject loud = plan(std::make_unique<Sinusoid>(1.5), {});
  const PropertyDef* bounded = nullptr;
  for (const auto* p : loud.properties) {
    if (p->info.id == "pe.bounded") bounded = p;
  }
  BOOST_REQUIRE(bounded != nullptr);
  const CheckOptions options;
  const PropertyResult r = check_property(loud, *bounded, options);
  BOOST_TEST(name(r.status()) == "failed");
  const std::string text = failure_text(r, bounded->info, options, "./t --run_test=s/pe.bounded");
  for (const char* part : {"pe.bounded on cpp:test-sinusoid: expected it to be holds, observed violated",
                           "claim: every component lies in [-1, 1]", "inputs: {", "where: position",
                           "observed: ", "expected: ", "> bound ", "rerun: PECHECK_SEED=1 PECHECK_CASES=100",
                           "PECHECK_REPRODUCE='", "./t --run_test=s/pe.bounded"}) {
    BOOST_TEST(contains(text, part), part << "\n" << text);
  }
  PlannedSubject correct = plan(std::make_unique<Sinusoid>(), {});
  BOOST_TEST(name(check_property(correct, *bounded, options).status()) == "passed");
}

BOOST_AUTO_TEST_CASE(options_from_the_environment) {
  setenv("PECHECK_SEED", "42", 1);
  setenv("PECHECK_CASES", "7", 1);
  const CheckOptions o = options_from_environment();
  BOOST_TEST(o.seed == 42u);
  BOOST_TEST(o.cases == 7);
  setenv("PECHECK_CASES", "seven", 1);
  BOOST_CHECK_THROW(options_from_environment(), std::invalid_argument);
  unsetenv("PECHECK_SEED");
  unsetenv("PECHECK_CASES");
  BOOST_TEST(options_from_environment().seed == 1u);
}

BOOST_AUTO_TEST_CASE(example_correct_encoder_test_passes) {
  const Shell r = run_shell(pecheck::testing::ctest_env("PECHECK_EXAMPLE_ENCODER_TEST"));
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(contains(r.output, "No errors detected"), r.output);
}

BOOST_AUTO_TEST_CASE(example_planted_bug_test_fails_naming_the_property) {
  const Shell r = run_shell(pecheck::testing::ctest_env("PECHECK_EXAMPLE_BUGGY_ENCODER_TEST") + " --color_output=false");
  BOOST_TEST(r.exit_code != 0, r.output);
  // The integer exponent makes every frequency 1: a frequency other than
  // the declared one is the reference values' to name (one cause, one
  // property: the step of a sinusoid at its own frequency is still constant).
  BOOST_TEST(!contains(r.output, "buggy_encoder/pe.step_size"), r.output);
  BOOST_TEST(contains(r.output, "buggy_encoder/pe.reference_values"), r.output);
  BOOST_TEST(contains(r.output, "inputs: {\"dim\":4,\"positions\":[1],\"published\":false,\"seq_len\":2}"),
             r.output);

  // The printed rerun line reproduces the failure alone.
  const auto start = r.output.find("rerun: ");
  BOOST_REQUIRE(start != std::string::npos);
  const std::string rerun = r.output.substr(start + 7, r.output.find('\n', start) - start - 7);
  const Shell again = run_shell(rerun + " --color_output=false");
  BOOST_TEST(again.exit_code != 0, again.output);
  BOOST_TEST(contains(again.output, "1 failure is detected"), again.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_cpp_api

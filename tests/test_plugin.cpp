// C ABI plugins (src/subjects/plugin: plugin_library, plugin_subject,
// plugin_factory): the loader's errors, the marshalling of every op, the
// example plugins judged by the properties, and crash isolation through the
// CLI (a plugin runs in a child `pecheck serve`).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "pecheck/reference/sinusoidal.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"
#include "support/planted.h"

// The CLI keeps state in its working directory (.pecheck/): this suite's runs get a fresh one.
BOOST_AUTO_TEST_SUITE(test_plugin, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using pecheck::testing::read_file;
using pecheck::testing::run_cli;
using pecheck::testing::sanitized;
using pecheck::testing::run_property;
using pecheck::testing::temp_dir;

namespace {

std::string lib(const std::string& name) { return pecheck::testing::ctest_env("PECHECK_PLUGIN_DIR") + "/lib" + name + ".so"; }
SubjectPtr inproc(const std::string& name) { return make_subject("plugin-inproc:" + lib(name)); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the SubjectFailure that loading `spec` throws.
std::string load_failure(const std::string& spec) {
  try {
    make_subject(spec);
  } catch (const SubjectFailure& f) {
    return f.what();
  }
  return "(loaded without error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_what_the_plugin_declares) {
  const auto s = inproc("sinusoidal_plugin");
  const SubjectInfo& info = s->info();
  BOOST_TEST(info.name == "c-sinusoidal");
  BOOST_TEST(format_spec(info.spec) == "plugin-inproc:" + lib("sinusoidal_plugin"));
  BOOST_TEST(name(info.dtype) == "float64");
  BOOST_TEST(name(info.layout) == "interleaved");
  BOOST_TEST(info.ops == static_cast<unsigned>(Op::encode));
  BOOST_TEST(info.scheme.empty());  // judged by the profile its ops imply
  BOOST_TEST(name(inproc("failing_plugin")->info().dtype) == "float32");
  const auto both = inproc("rope_attention_plugin");
  BOOST_TEST(both->info().ops == (static_cast<unsigned>(Op::rotate) | static_cast<unsigned>(Op::attention)));
}

BOOST_AUTO_TEST_CASE(encode_writes_rows_in_order) {
  // The same closed form in C and C++, over the same libm: equal bit for bit,
  // so any transposition or stride error in the marshalling shows.
  const auto s = inproc("sinusoidal_plugin");
  const Positions positions{0, 3, 17, 1000};
  const Matrix got = ask::encode(*s, 6, positions, 2000);
  const Matrix want = reference::sinusoidal(6, positions, Layout::interleaved);
  BOOST_TEST(got.rows() == 4);
  BOOST_TEST(got.cols() == 6);
  BOOST_TEST((got == want));
}

BOOST_AUTO_TEST_CASE(refusal_and_failure_codes) {
  const auto s = inproc("sinusoidal_plugin");
  try {
    ask::encode(*s, 5, {1}, 2);
    BOOST_FAIL("an odd dim must be refused");
  } catch (const Refusal& r) {
    BOOST_TEST(std::string(r.what()) == "dim must be even, got 5");
  }
  const auto failing = inproc("failing_plugin");
  BOOST_CHECK_THROW(ask::encode(*failing, 3, {0}, 1), Refusal);
  try {
    ask::encode(*failing, 4, {0}, 1);
    BOOST_FAIL("return code 2 must be a subject failure");
  } catch (const SubjectFailure& f) {
    BOOST_TEST(contains(f.what(), "pecheck_encode returned 2: out of device memory"), f.what());
    BOOST_TEST(contains(f.request, "dim 4"), f.request);
  }
  // An op the plugin does not declare is refused, never called.
  BOOST_CHECK_THROW(ask::rotate(*s, {0}, Matrix::Zero(1, 2), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(loader_errors_name_the_file_and_the_problem) {
  BOOST_TEST(contains(load_failure("plugin-inproc:/no/such/libx.so"), "cannot load plugin /no/such/libx.so: no such file"));
  const std::string not_plugin = load_failure("plugin-inproc:" + lib("not_a_plugin"));
  BOOST_TEST(contains(not_plugin, "not a pecheck plugin: it exports no pecheck_plugin_info"), not_plugin);
  const std::string abi = load_failure("plugin-inproc:" + lib("wrong_abi_plugin"));
  BOOST_TEST(contains(abi, "built for plugin ABI version 42, this pecheck loads version 1"), abi);
  const std::string missing = load_failure("plugin-inproc:" + lib("missing_symbol_plugin"));
  BOOST_TEST(contains(missing, "declares op 'rotate' but exports no pecheck_rotate"), missing);
  // A file that is not a shared library at all: dlopen's own words.
  const std::string fake = temp_dir("pecheck-plugin") + "/libtext.so";
  std::ofstream(fake) << "not an ELF file\n";
  const std::string text = load_failure("plugin-inproc:" + fake);
  BOOST_TEST(contains(text, "dlopen failed"), text);
  // A spec that names no file is a usage error, not a subject failure.
  BOOST_CHECK_THROW(make_subject("plugin:"), BadSubjectSpec);
  BOOST_CHECK_THROW(make_subject("plugin-inproc:"), BadSubjectSpec);
}

BOOST_AUTO_TEST_CASE(rotate_and_attention_marshalling) {
  const auto s = inproc("rope_attention_plugin");
  // R_0 is the identity, exactly; R_t e_0 = (cos tω_0, sin tω_0) with ω_0 = 1.
  Matrix x(2, 4);
  x << 1, 0, 0, 0, 0.5, -2, 3, 0.25;
  const Matrix r0 = ask::rotate(*s, {0, 0}, x, std::nullopt);
  BOOST_TEST((r0 == x));
  const Matrix r7 = ask::rotate(*s, {7, 0}, x, std::nullopt);
  BOOST_TEST(r7(0, 0) == std::cos(7.0));
  BOOST_TEST(r7(0, 1) == std::sin(7.0));
  BOOST_TEST((r7.row(1) == x.row(1)));  // each row gets its own position

  // Masked keys contribute exp(-inf) = 0 exactly, so attention under a mask
  // equals attention over the visible keys alone, bit for bit.
  Matrix q(2, 3), k(3, 3), v(3, 2);
  q << 1, 2, -1, 0.5, 0, 1;
  k << 0, 1, 1, 2, -1, 0, 1, 1, 1;
  v << 1, 10, 2, 20, 3, 30;
  BoolMatrix allowed(2, 3);
  allowed << true, false, true, false, true, true;
  const Matrix masked = ask::attention(*s, q, k, v, AttentionMask::boolean(allowed));
  const std::vector<std::vector<int>> visible = {{0, 2}, {1, 2}};
  for (int i = 0; i < 2; ++i) {
    Matrix ks(2, 3), vs(2, 2);
    for (int j = 0; j < 2; ++j) {
      ks.row(j) = k.row(visible[i][j]);
      vs.row(j) = v.row(visible[i][j]);
    }
    const Matrix alone = ask::attention(*s, q.row(i), ks, vs, AttentionMask::none());
    BOOST_TEST((masked.row(i) == alone.row(0)), "row " << i);
  }
  // Causal: query i sees keys 0..i.
  const Matrix causal = ask::attention(*s, k, k, v, AttentionMask::causal());
  for (int i = 0; i < 3; ++i) {
    const Matrix alone = ask::attention(*s, k.row(i), k.topRows(i + 1), v.topRows(i + 1), AttentionMask::none());
    BOOST_TEST((causal.row(i) == alone.row(0)), "row " << i);
  }
  BOOST_CHECK_THROW(ask::attention(*s, q, k, v, AttentionMask::none(), 2), Refusal);
}

BOOST_AUTO_TEST_CASE(example_plugins_under_the_properties) {
  const auto good = inproc("sinusoidal_plugin");
  for (const char* id : {"pe.bounded", "pe.constant_norm"}) {
    const auto r = run_property(id, *good);
    BOOST_TEST(name(r.outcome) == "holds", id << ": " << r.message());
    BOOST_TEST(r.cases == 100);
  }
  // sin²(tω_i) + cos²(tω_{i+1}) ≠ 1: the norm catches the frequency mismatch,
  // and the shrunk witness is the smallest case: one pair, position 1.
  const auto bad = inproc("frequency_mismatch_plugin");
  const auto r = run_property("pe.constant_norm", *bad);
  BOOST_TEST(name(r.outcome) == "violated");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(r.counterexample()->inputs.dump().size() < 80u, r.counterexample()->inputs.dump());
  // pe.bounded cannot see this bug (sin and cos stay in [-1, 1]).
  BOOST_TEST(name(run_property("pe.bounded", *bad).outcome) == "holds");
}

// Through the CLI: plugin:PATH runs in a child, so a crash cannot take the harness down.
BOOST_AUTO_TEST_CASE(cli_correct_plugin_passes) {
  const std::string dir = temp_dir("pecheck-plugin");
  const auto r = run_cli({"run", "--subject", "plugin:" + lib("sinusoidal_plugin"), "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(report["subjects"][0]["spec"] == "plugin:" + lib("sinusoidal_plugin"));
  BOOST_TEST(report["subjects"][0]["scheme"] == "sinusoidal");  // the profile its ops imply
  for (const auto& result : report["results"]) {
    BOOST_TEST(result["property"].get<std::string>().rfind("pe.", 0) == 0u, result["property"]);
  }
}

BOOST_AUTO_TEST_CASE(cli_planted_bug_fails_with_a_counterexample) {
  const std::string dir = temp_dir("pecheck-plugin");
  const auto r = run_cli({"run", "--subject", "plugin:" + lib("frequency_mismatch_plugin"), "--report-dir", dir});
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(contains(r.output, "pe.constant_norm"), r.output);
  BOOST_TEST(contains(r.output, "counterexample"), r.output);
  BOOST_TEST(contains(read_file(dir + "/junit.xml"), "pe.constant_norm"));
  BOOST_TEST(contains(read_file(dir + "/summary.md"), "pe.constant_norm"));
}

BOOST_AUTO_TEST_CASE(cli_crashing_plugin_is_a_subject_failure) {
  const std::string dir = temp_dir("pecheck-plugin");
  const auto r = run_cli({"run", "--subject", "plugin:" + lib("crashing_plugin"), "--report-dir", dir});
  BOOST_TEST(r.exit_code == 3, r.output);  // not a signal: pecheck survived
  // The plugin's crash: the signal, or under AddressSanitizer its own report of the SEGV.
  const std::string crash = sanitized() ? "AddressSanitizer: SEGV" : "SIGSEGV";
  BOOST_TEST(contains(r.output, crash), r.output);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(report["exit_code"] == 3);
  bool saw_failure = false;
  for (const auto& result : report["results"]) {
    if (result.contains("subject_failure")) {
      saw_failure = true;
      const std::string status = result["subject_failure"]["exit_status"].get<std::string>();
      BOOST_TEST(contains(status, sanitized() ? "exit 1" : "SIGSEGV"), status);
      if (sanitized()) BOOST_TEST(contains(result["subject_failure"]["stderr_tail"].get<std::string>(), crash));
      BOOST_TEST(contains(result["subject_failure"]["request"].get<std::string>(), "encode"));
    }
  }
  BOOST_TEST(saw_failure);
  BOOST_TEST(std::filesystem::exists(dir + "/junit.xml"));
  BOOST_TEST(std::filesystem::exists(dir + "/summary.md"));
}

BOOST_AUTO_TEST_CASE(cli_load_errors_exit_3_and_malformed_specs_exit_2) {
  const std::string dir = temp_dir("pecheck-plugin");
  const auto missing = run_cli({"run", "--subject", "plugin:/no/such/libx.so", "--report-dir", dir});
  BOOST_TEST(missing.exit_code == 3, missing.output);
  BOOST_TEST(contains(missing.output, "cannot load plugin /no/such/libx.so: no such file"), missing.output);
  // Loaded by the child: its message still reaches the user.
  const auto abi = run_cli({"run", "--subject", "plugin:" + lib("wrong_abi_plugin"), "--report-dir", dir});
  BOOST_TEST(abi.exit_code == 3, abi.output);
  BOOST_TEST(contains(abi.output, "ABI version 42"), abi.output);
  const auto not_plugin = run_cli({"run", "--subject", "plugin:" + lib("not_a_plugin"), "--report-dir", dir});
  BOOST_TEST(not_plugin.exit_code == 3, not_plugin.output);
  BOOST_TEST(contains(not_plugin.output, "exports no pecheck_plugin_info"), not_plugin.output);
  const auto empty = run_cli({"run", "--subject", "plugin:", "--report-dir", dir});
  BOOST_TEST(empty.exit_code == 2, empty.output);
  BOOST_TEST(contains(empty.output, "names no file"), empty.output);
}

BOOST_AUTO_TEST_CASE(cli_rotary_and_attention_plugin_meets_both_profiles) {
  const std::string dir = temp_dir("pecheck-plugin");
  const auto r = run_cli({"run", "--subject", "plugin:" + lib("rope_attention_plugin"), "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(report["subjects"][0]["scheme"] == "rotary+attention");
  std::map<std::string, std::string> outcome;
  for (const auto& result : report["results"]) {
    outcome[result["property"].get<std::string>()] = result["outcome"].get<std::string>();
  }
  // Masks cross the C ABI with the right polarity; rotations compose.
  BOOST_TEST(outcome["attention.padding_mask_isolation"] == "holds");
  BOOST_TEST(outcome["attention.causal_permutation_equivariance"] == "violated");  // as the claim expects
  BOOST_TEST(outcome["rope.composition"] == "holds");
  BOOST_TEST(outcome.count("pe.bounded") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_plugin

// The command line's options are validated like the config file (issue 12):
// a value that would switch a safeguard off, wrap, or mean something other
// than it says is exit 2 with the option and what is wrong, before any work
// starts. Each refusal is shown through the built CLI; so is the accepted
// neighbour of each, so the checks are not merely strict.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "pecheck/core/json.h"
#include "pecheck/runner/reproduce.h"
#include "support/cli.h"

// The CLI keeps state in its working directory (.pecheck/) and --report-dir ""
// would mean that directory: this suite's runs get a fresh one to look at.
BOOST_AUTO_TEST_SUITE(test_options, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A run that would finish in milliseconds if its options were accepted.
std::vector<std::string> quick_run(std::vector<std::string> extra) {
  std::vector<std::string> args = {"run", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded",
                                   "--cases", "5", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Runs `args`; requires exit 2 and `message` in the output.
void refused(const std::vector<std::string>& args, const std::string& message) {
  const auto r = run_cli(args);
  std::string shown;
  for (const auto& a : args) shown += "[" + a + "] ";
  BOOST_TEST(r.exit_code == 2, shown << "exit " << r.exit_code << ": " << r.output);
  BOOST_TEST(contains(r.output, message), shown << "\n  want: " << message << "\n  got:  " << r.output);
  BOOST_TEST(!contains(r.output, "internal error"), r.output);
}

void accepted(const std::vector<std::string>& args) {
  const auto r = run_cli(args);
  std::string shown;
  for (const auto& a : args) shown += "[" + a + "] ";
  BOOST_TEST(r.exit_code == 0, shown << "exit " << r.exit_code << ": " << r.output);
}

// Bytes in RapidCheck's reproduce-string encoding (6 bits per character,
// least significant first; github.com/emil-e/rapidcheck src/detail/Base64.cpp),
// to build strings RapidCheck's encoder never writes.
std::string reproduce_encoding(const std::vector<unsigned char>& bytes) {
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t bits = 0;
    int nbits = 0;
    for (std::size_t j = i; j < std::min(bytes.size(), i + 3); ++j, nbits += 8) bits |= bytes[j] << nbits;
    for (; nbits > 0; nbits -= 6, bits >>= 6) out += alphabet[bits & 0x3F];
  }
  return out;
}

std::string write_config(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/pecheck.toml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_timeout_must_be_finite_and_positive) {
  // NaN used to switch the timeout off: a hanging subject hung pecheck.
  const std::string dir = temp_dir("pecheck-options");
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "0", "-1", "1e400", "ten", " 5"}) {
    refused(quick_run({"--subject-timeout", bad, "--report-dir", dir}), "--subject-timeout: ");
    refused({"replay", "whatever.json", "--subject-timeout", bad}, "--subject-timeout: ");
  }
  refused(quick_run({"--subject-timeout", "nan", "--report-dir", dir}), "must be a finite positive number, got nan");
  refused(quick_run({"--subject-timeout", "1e7", "--report-dir", dir}), "1e7 is more than the largest allowed, 1e+06");
  accepted(quick_run({"--subject-timeout", "0.5", "--report-dir", dir}));
  accepted(quick_run({"--subject-timeout", "1e6", "--report-dir", dir}));
}

BOOST_AUTO_TEST_CASE(a_tolerance_factor_must_be_finite_and_positive) {
  // NaN made every comparison false: every check failed.
  const std::string dir = temp_dir("pecheck-options");
  for (const char* bad : {"nan", "inf", "0", "-8", ""}) {
    refused(quick_run({"--tolerance-factor", bad, "--report-dir", dir}), "--tolerance-factor: ");
  }
  refused(quick_run({"--tolerance-factor", "nan", "--report-dir", dir}), "must be a finite positive number, got nan");
  accepted(quick_run({"--tolerance-factor", "2.5", "--report-dir", dir}));
}

BOOST_AUTO_TEST_CASE(a_precision_target_must_be_finite_and_positive) {
  // NaN used to be ignored silently (the default target applied).
  const std::string dir = temp_dir("pecheck-options");
  for (const char* bad : {"nan", "inf", "0", "-1e-3"}) {
    refused(quick_run({"--budget", "--precision-target", bad, "--report-dir", dir}), "--precision-target: ");
  }
  refused(quick_run({"--precision-target", "nan", "--report-dir", dir}), "must be a finite positive number, got nan");
}

BOOST_AUTO_TEST_CASE(an_empty_report_dir_is_refused_and_nothing_is_written) {
  // "" used to be the current directory, whose counterexamples/*.json were deleted.
  fs::create_directories("counterexamples");
  std::ofstream("counterexamples/keep.json") << "{}\n";
  refused(quick_run({"--report-dir", ""}), "--report-dir: must not be empty");
  BOOST_TEST(fs::exists("counterexamples/keep.json"));
  BOOST_TEST(!fs::exists("report.json"));
  // Other paths and names are refused empty too: "" never means "the default".
  for (const char* option : {"--config", "--profile", "--regression-dir", "--properties", "--reproduce"}) {
    refused(quick_run({option, "", "--report-dir", temp_dir("pecheck-options")}),
            std::string(option) + ": must not be empty");
  }
  refused({"replay", "whatever.json", "--config", ""}, "--config: must not be empty");
}

BOOST_AUTO_TEST_CASE(seeds_are_strict_integers_or_random) {
  // -5 used to wrap to 2^64 - 5.
  const std::string dir = temp_dir("pecheck-options");
  for (const char* bad : {"-5", "+5", "5.0", "1e3", "0x10", " 5", "5 ", "18446744073709551616", "Random", ""}) {
    refused(quick_run({"--seed", bad, "--report-dir", dir}), "--seed: ");
  }
  refused(quick_run({"--seed", "-5", "--report-dir", dir}),
          "'-5' is neither 'random' nor a whole number in [0, 18446744073709551615]");
  // The whole range is usable, and the report records exactly the seed given.
  accepted(quick_run({"--seed", "18446744073709551615", "--report-dir", dir}));
  BOOST_TEST(json::parse(read_file(dir + "/report.json"))["seed"].get<std::uint64_t>() == 18446744073709551615ull);
  accepted(quick_run({"--seed", "0", "--report-dir", dir}));
  accepted(quick_run({"--seed", "random", "--report-dir", dir}));
}

BOOST_AUTO_TEST_CASE(counts_are_strict_integers_in_range) {
  const std::string dir = temp_dir("pecheck-options");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--cases", "0"},           {"--cases", "-5"},         {"--cases", "+5"},          {"--cases", "1e3"},
      {"--cases", "0x10"},        {"--cases", "5.5"},        {"--cases", " 5"},          {"--cases", "10000001"},
      {"--cases", "99999999999999999999"},                   {"--max-size", "-1"},       {"--max-size", "100001"},
      {"--max-position", "0"},    {"--max-position", "1099511627777"},                   {"--github-annotations", "-1"},
      {"--github-annotations", "2.5"},
  };
  for (const auto& [option, value] : bad) refused(quick_run({option, value, "--report-dir", dir}), option + ": ");
  refused(quick_run({"--cases", "1e3", "--report-dir", dir}),
          "--cases: '1e3' is not a whole number in [1, 10000000] (digits only: no sign, spaces or exponent)");
  refused(quick_run({"--max-position", "1099511627777", "--report-dir", dir}),
          "--max-position: 1099511627777 is outside [1, 1099511627776]");
  accepted({"run", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded", "-q", "--cases", "007",
            "--max-size", "0", "--max-position", "1", "--github-annotations", "0", "--report-dir", dir});
  BOOST_TEST(json::parse(read_file(dir + "/report.json"))["cases"] == 7);
}

BOOST_AUTO_TEST_CASE(reproduce_strings_are_checked_before_the_run) {
  // "garbage" used to end as "internal error", exit 1, after the subjects had started.
  const std::string dir = temp_dir("pecheck-options");
  refused(quick_run({"--reproduce", "garbage", "--report-dir", dir}),
          "--reproduce: 'garbage' is not a RapidCheck reproduce string");
  refused(quick_run({"--reproduce", "!!not base64!!", "--report-dir", dir}), "is not a RapidCheck reproduce string");

  // Reproduce strings a report never holds, forged with RapidCheck's encoder.
  const std::string unknown = reproduce_string({{"pe.no_such_claim", 3}});
  refused(quick_run({"--reproduce", unknown, "--report-dir", dir}),
          "reproduces property 'pe.no_such_claim', which this pecheck does not have");
  // A doctored size would draw inputs at any size (matrices that do not fit in memory).
  refused(quick_run({"--reproduce", reproduce_string({{"pe.bounded", 1 << 30}}), "--report-dir", dir}),
          "draws pe.bounded at size 1073741824, outside [0, --max-size 100]");
  refused(quick_run({"--reproduce", reproduce_string({{"pe.bounded", 3}}), "--max-size", "2", "--report-dir", dir}),
          "outside [0, --max-size 2]");
  refused(quick_run({"--reproduce", reproduce_string({}), "--report-dir", dir}),
          "it holds 0 entries; pecheck's name exactly one property");
  refused(quick_run({"--reproduce", reproduce_string({{"pe.bounded", 3}, {"pe.constant_norm", 3}}), "--report-dir",
                     dir}),
          "it holds 2 entries");
  // Found by fuzz/reproduce_string.cpp: 15 characters declaring a 14 GB
  // string, which RapidCheck's decoder reserves before noticing the data ends.
  const auto found = run_cli(quick_run({"--reproduce", "8Acl5yNN5CEAAAC", "--report-dir", dir}));
  BOOST_TEST(found.exit_code == 2);
  BOOST_TEST(contains(found.output, "is not a RapidCheck reproduce string"), found.output);
  BOOST_TEST(found.max_rss_kib < 200 * 1024 * memory_scale(), found.max_rss_kib << " KiB");
  // Also found by fuzzing: RapidCheck's decoder reads the last byte of the
  // random state without checking for the end, then runs past it (SEGV under
  // AddressSanitizer; a silent out-of-bounds read otherwise).
  const auto past_end = run_cli(quick_run(
      {"--reproduce",
       "B8zlXbtVGdN10__cxxabiv120__si_class_type_inKweu97hKAAoCIECB5CZl3euK7h9CIoCqAyl1euK7h9CIoCsnryeYvACqA75qsH2LggOweu"
       "K7h9CIoCEAABEAAqAAA",
       "--report-dir", dir}));
  BOOST_TEST(past_end.exit_code == 2);
  BOOST_TEST(contains(past_end.output, "is not a RapidCheck reproduce string"), past_end.output);
  // One entry whose name claims 2^32 bytes, in 8 bytes of data.
  const std::string long_name = reproduce_encoding({0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 'p', 'e'});
  const auto doctored = run_cli(quick_run({"--reproduce", long_name, "--report-dir", dir}));
  BOOST_TEST(doctored.exit_code == 2);
  BOOST_TEST(contains(doctored.output, "it declares a property name longer than the 8 bytes it holds"),
             doctored.output);
  BOOST_TEST(doctored.max_rss_kib < 200 * 1024 * memory_scale(), doctored.max_rss_kib << " KiB");

  // A reproduce string from a real report is accepted and reproduces the failure.
  const std::vector<std::string> off_by_one = {"run", "-q", "--subject", "mutant:sinusoidal-off-by-one",
                                               "--properties", "pe.reference_values", "--report-dir", dir};
  const auto first = run_cli(off_by_one);
  BOOST_REQUIRE(first.exit_code == 1);
  const std::string reproduce = json::parse(read_file(dir + "/report.json"))["results"][0]["reproduce"];
  auto trailing = off_by_one;
  trailing.insert(trailing.end(), {"--reproduce", reproduce + "AAAA"});
  refused(trailing, "bytes follow its end");
  auto again = off_by_one;
  again.insert(again.end(), {"--reproduce", reproduce});
  const auto second = run_cli(again);
  BOOST_TEST(second.exit_code == 1, second.output);
  BOOST_TEST(json::parse(read_file(dir + "/report.json"))["results"][0]["outcome"] == "violated");
}

BOOST_AUTO_TEST_CASE(plugin_inproc_is_not_a_subject_people_name) {
  // It loads the plugin into pecheck itself: a crashing plugin killed pecheck (exit 139).
  const std::string dir = temp_dir("pecheck-options");
  const std::string message = "'plugin-inproc:/x/libp.so': plugin-inproc: loads the plugin into pecheck itself, where a crash ends the whole run; "
                              "it is internal to 'pecheck serve'. Write plugin:/x/libp.so";
  refused(quick_run({"--subject", "plugin-inproc:/x/libp.so", "--report-dir", dir}), "--subject: " + message);
  refused({"replay", "whatever.json", "--subject", "plugin-inproc:/x/libp.so"}, "--subject: " + message);
  refused({"run", "--config", write_config(dir, "subject = \"plugin-inproc:/x/libp.so\"\n"), "--report-dir", dir},
          "pecheck.toml:1: subject: " + message);
  // `pecheck serve` still takes it (that is what a plugin: subject's child runs).
  const auto serve = run_cli({"serve", "plugin-inproc:/no/such/lib.so"});
  BOOST_TEST(!contains(serve.output, "internal to 'pecheck serve'"), serve.output);
}

BOOST_AUTO_TEST_CASE(an_empty_subject_list_in_the_config_is_an_error) {
  // subject = [] used to mean "every built-in".
  const std::string dir = temp_dir("pecheck-options");
  refused({"run", "--config", write_config(dir, "subject = []\n"), "--report-dir", dir + "/r"},
          "pecheck.toml:1: subject: an empty list names nothing");
  BOOST_TEST(!fs::exists(dir + "/r"));
  refused({"run", "--config", write_config(dir, "properties = []\n"), "--report-dir", dir + "/r"},
          "pecheck.toml:1: properties: an empty list names nothing");
}

BOOST_AUTO_TEST_CASE(a_subject_named_twice_is_refused) {
  // 400 copies used to make junit.xml grow quadratically (480 MB). Decision:
  // refuse (exit 2, naming the duplicate), never merge silently.
  const std::string dir = temp_dir("pecheck-options");
  refused(quick_run({"--subject", "builtin:rope", "--subject", "builtin:sinusoidal", "--report-dir", dir}),
          "pecheck: --subject builtin:sinusoidal is given twice; name each subject once");
  refused({"run", "--config",
           write_config(dir, "subject = [\"builtin:rope\", \"builtin:sinusoidal\", \"builtin:rope\"]\n"),
           "--report-dir", dir},
          "pecheck.toml:1: subject: 'builtin:rope' is named twice; name each subject once");
  // The command line's subjects replace the file's (they are never added to
  // them), so a spec in both runs once.
  const std::string config = write_config(dir, "subject = \"builtin:sinusoidal\"\nproperties = \"pe.bounded\"\n");
  accepted({"run", "--config", config, "--subject", "builtin:sinusoidal", "--report-dir", dir + "/both"});
  const json report = json::parse(read_file(dir + "/both/report.json"));
  BOOST_TEST(report["subjects"].size() == 1u);
  BOOST_TEST(report["results"].size() == 1u);
  // Different subjects are of course fine.
  accepted(quick_run({"--subject", "builtin:sinusoidal-halves", "--report-dir", dir + "/two"}));
}

BOOST_AUTO_TEST_SUITE_END()  // test_options

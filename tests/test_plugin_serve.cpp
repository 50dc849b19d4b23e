// `pecheck serve` (src/subjects/serve, src/cli/serve_command): the subject side of the protocol, the
// way the CLI runs plugins in a child. Requests in, one response line each.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include <cmath>
#include <sstream>

#include "pecheck/core/json.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/serve.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"

// The CLI keeps state in its working directory (.pecheck/): this suite's runs get a fresh one.
BOOST_AUTO_TEST_SUITE(test_plugin_serve, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;

namespace {

json answer_line(Subject& s, const std::string& line) {
  bool shutdown = false;
  return json::parse(quote_non_finite_tokens(answer(s, line, shutdown)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(hello_says_what_the_subject_is) {
  const auto s = make_subject("builtin:sinusoidal");
  const json hello = answer_line(*s, R"({"id":0,"op":"hello","protocol":1})");
  BOOST_TEST(hello["id"] == 0);
  BOOST_TEST(hello["result"]["protocol"] == 1);
  BOOST_TEST(hello["result"]["name"] == "sinusoidal");
  BOOST_TEST(hello["result"]["ops"] == json::array({"encode"}));
  BOOST_TEST(hello["result"]["dtype"] == "float64");
  BOOST_TEST(hello["result"]["layout"] == "interleaved");
  BOOST_TEST(!hello["result"].contains("batch"), "a version-1 harness gets a version-1 hello");
  const json v2 = answer_line(*s, R"({"id":0,"op":"hello","protocol":2})");
  BOOST_TEST(v2["result"]["protocol"] == 2);
  BOOST_TEST(v2["result"]["batch"] == true);
  BOOST_TEST(v2["result"]["arrays"] == json::array({"b64le"}));
  const json other = answer_line(*s, R"({"id":0,"op":"hello","protocol":3})");
  BOOST_TEST(other["error"].get<std::string>().find("protocol 3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(encode_round_trips_exactly) {
  const auto s = make_subject("builtin:sinusoidal");
  const json r = answer_line(*s, R"({"id":7,"op":"encode","dim":4,"positions":[0,5],"seq_len":6})");
  BOOST_TEST(r["id"] == 7);
  // Shortest round-trip text: the numbers read back are the doubles computed.
  BOOST_TEST((matrix_from_json(r["result"]) == ask::encode(*s, 4, {0, 5}, 6)));
}

BOOST_AUTO_TEST_CASE(refusals_and_bad_requests_are_error_answers) {
  const auto s = make_subject("builtin:sinusoidal");
  const json rotate = answer_line(*s, R"({"id":1,"op":"rotate","positions":[0],"x":[[1,2]]})");
  BOOST_TEST(rotate["id"] == 1);
  BOOST_TEST(rotate["error"].get<std::string>().find("does not implement rotate") != std::string::npos);
  BOOST_TEST(answer_line(*s, R"({"id":2,"op":"frobnicate"})")["error"] == "unknown op 'frobnicate'");
  BOOST_TEST(answer_line(*s, R"({"id":3,"op":"encode","dim":"four"})")["error"].get<std::string>().find("malformed encode") == 0u);
  const json garbage = answer_line(*s, "not json");
  BOOST_TEST(garbage["id"].is_null());
  BOOST_TEST(garbage["error"].get<std::string>().find("not JSON") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(non_finite_numbers_travel_as_bare_tokens) {
  BOOST_TEST(quote_non_finite_tokens(R"({"x":[NaN,-Infinity,Infinity],"s":"NaN \" Infinity"})") ==
             R"({"x":["NaN","-Infinity","Infinity"],"s":"NaN \" Infinity"})");
  // A NaN in a request reaches the subject as a NaN, and one in a result is written bare.
  const auto s = make_subject("builtin:attention");
  const json r = answer_line(*s, R"({"id":4,"op":"attention","q":[[1]],"k":[[1]],"v":[[NaN]],"mask":"none"})");
  BOOST_REQUIRE(r.contains("result"));
  BOOST_TEST(std::isnan(number_from_json(r["result"][0][0])));
  bool shutdown = false;
  const std::string line = answer(*s, R"({"id":5,"op":"attention","q":[[1]],"k":[[1]],"v":[[-Infinity]]})", shutdown);
  BOOST_TEST(line == R"({"id":5,"result":[[-Infinity]]})");
}

BOOST_AUTO_TEST_CASE(serve_loop_shutdown_and_subject_failure) {
  const auto s = make_subject("builtin:sinusoidal");
  std::istringstream in("{\"id\":0,\"op\":\"hello\"}\n\n{\"id\":1,\"op\":\"shutdown\"}\n{\"id\":2,\"op\":\"hello\"}\n");
  std::ostringstream out, log;
  BOOST_TEST(serve(*s, in, out, log) == 0);
  // Blank lines are skipped; nothing is read after shutdown.
  BOOST_TEST(out.str().find("{\"id\":1,\"result\":null}\n") != std::string::npos);
  BOOST_TEST(out.str().find("\"id\":2") == std::string::npos);

  // A plugin that reports a failure ends the child with status 3 and says why.
  const auto failing = make_subject("plugin-inproc:" + pecheck::testing::ctest_env("PECHECK_PLUGIN_DIR") + "/libfailing_plugin.so");
  std::istringstream requests("{\"id\":1,\"op\":\"encode\",\"dim\":3,\"positions\":[0],\"seq_len\":1}\n"
                              "{\"id\":2,\"op\":\"encode\",\"dim\":4,\"positions\":[0],\"seq_len\":1}\n");
  std::ostringstream answers, errors;
  BOOST_TEST(serve(*failing, requests, answers, errors) == 3);
  BOOST_TEST(answers.str() == "{\"error\":\"odd dim 3\",\"id\":1}\n");  // the refusal, then nothing
  BOOST_TEST(errors.str().find("out of device memory") != std::string::npos, errors.str());
}

BOOST_AUTO_TEST_CASE(serve_command_speaks_to_the_process_client) {
  // pecheck talking to pecheck: the process subject against a served built-in.
  const std::string bin = std::getenv("PECHECK_BIN");
  const std::string dir = testing::temp_dir("pecheck-serve");
  const auto r = testing::run_cli({"run", "--subject", "cmd:" + bin + " serve builtin:sinusoidal", "--properties",
                                   "pe.bounded", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
  const auto bad = testing::run_cli({"serve", "nonsense"});
  BOOST_TEST(bad.exit_code == 2, bad.output);
}

BOOST_AUTO_TEST_CASE(a_plugin_served_in_a_child_is_started_once_and_forked) {
  // `pecheck serve` runs one thread once the plugin is loaded, so it declares
  // fork: each job's instance and each fresh copy is a copy of it, and
  // history_independence, which needs fresh copies, applies to the plugin
  // (asked for: the encoders' profile leaves it to module subjects).
  const std::string dir = testing::temp_dir("pecheck-serve-fork");
  const std::string plugin = "plugin:" + pecheck::testing::ctest_env("PECHECK_PLUGIN_DIR") + "/libsinusoidal_plugin.so";
  const std::vector<std::string> args = {"run", "--subject", plugin, "--profile", "module", "--properties",
                                         "history_independence", "--cases", "30", "--jobs", "2"};
  std::vector<std::string> forked = args;
  forked.insert(forked.end(), {"--report-dir", dir});
  const auto r = testing::run_cli(forked);
  BOOST_TEST(r.exit_code == 0, r.output);
  const json report = json::parse(testing::read_file(dir + "/report.json"));
  BOOST_REQUIRE(report["results"].size() == 1u);
  BOOST_TEST(report["results"][0]["property"] == "history_independence");
  BOOST_TEST(report["results"][0]["status"] == "passed", report["results"][0].dump());
  // Without fork the plugin cannot be started again as new as the first: the claim does not apply.
  std::vector<std::string> started = args;
  started.insert(started.end(), {"--no-fork", "--report-dir", dir + "-no-fork"});
  const auto plain = testing::run_cli(started);
  BOOST_TEST(plain.exit_code != 0, plain.output);
  const bool not_applied = plain.output.find("no cell was run") != std::string::npos ||
                           plain.output.find("no selected property applies") != std::string::npos;
  BOOST_TEST(not_applied, plain.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_plugin_serve

// What `pecheck run` prints for a person (issue 10's console list): the
// subject's declared name, precision, conventions and profile up front; the
// declared name as its column label; the seed --seed random drew; an expected
// violation's witness in one line; a failed subject's stderr tail and a rerun
// line that reproduces it; colour and live progress on a terminal only, and
// no colour under NO_COLOR; JUnit's message carrying the witness.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <regex>

#include "pecheck/core/json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_console)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

const std::string kBin = std::getenv("PECHECK_BIN") ? std::getenv("PECHECK_BIN") : "pecheck";
const std::string kSource = std::getenv("PECHECK_SOURCE_DIR") ? std::getenv("PECHECK_SOURCE_DIR") : ".";

// A correct stdlib-only encoder that never crashes (its crash is past any request here).
std::string healthy() { return "cmd:/usr/bin/python3 " + kSource + "/tests/subjects/misbehaving.py crash-later 1000000"; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Shell {
  int exit_code = -1;
  std::string output;
};

// A shell command line (stdout and stderr together), under a watchdog.
Shell shell(const std::string& command) {
  Shell r;
  FILE* pipe = popen(("timeout 300 " + command + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string sh_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// pecheck run under a pseudo-terminal (util-linux `script`), with `env` before it.
Shell on_terminal(const std::string& env, const std::vector<std::string>& args) {
  std::string command = env;
  command.append(" ").append(sh_quoted(kBin)).append(" run");
  for (const auto& a : args) command.append(" ").append(sh_quoted(a));
  return shell(std::string("env TERM=xterm script -qec ").append(sh_quoted(command)).append(" /dev/null"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_subject_is_introduced_before_its_cells) {
  const std::string rope = "cmd:/usr/bin/python3 " + kSource + "/examples/python/numpy_rope.py";
  const auto r = run_cli({"run", "--subject", rope, "--properties", "rope.identity_at_zero", "--cases", "10",
                          "--report-dir", temp_dir("pecheck-console")});
  BOOST_TEST(r.exit_code == 0, r.output);
  // Name, precision, ops, the declared conventions, the profile: before the first cell.
  const auto first_cell = r.output.find("ok   rope.identity_at_zero");
  BOOST_TEST(r.output.find("subject numpy-rope-float64 = " + rope) < first_cell, r.output);
  BOOST_TEST(r.output.find("answers in float64; ops: rotate; takes batches") < first_cell, r.output);
  BOOST_TEST(r.output.find("judged by what it declares (2 fields): rotate: base 10000, interleaved layout") < first_cell,
             r.output);
  BOOST_TEST(r.output.find("expectations of its scheme rotary: 1 property") < first_cell, r.output);

  // A subject that declares nothing is told it is judged by the defaults.
  const auto plain = run_cli({"run", "--subject", healthy(), "--properties", "pe.bounded", "--cases", "10",
                              "--report-dir", temp_dir("pecheck-console")});
  BOOST_TEST(has(plain.output, "declares no convention: judged by the defaults (encode: base 10000, schedule 2i/d"),
             plain.output);
}

BOOST_AUTO_TEST_CASE(columns_are_labelled_by_the_declared_name_unless_two_share_it) {
  const std::string dir = temp_dir("pecheck-console");
  const auto r = run_cli({"run", "--subject", healthy(), "--properties", "pe.bounded", "--cases", "10",
                          "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
  // The per-cell line and the matrix header read the declared name, not the command line.
  BOOST_TEST(std::regex_search(r.output, std::regex("ok   pe\\.bounded +misbehaving-crash-later +holds")), r.output);
  BOOST_TEST(std::regex_search(r.output, std::regex("\npe +misbehaving-crash-later\n")), r.output);
  BOOST_TEST(has(read_file(dir + "/summary.md"), "| misbehaving-crash-later |"));

  // The same script twice declares one name twice: the columns fall back to the specs.
  const std::string twin = healthy() + "0";
  const auto both = run_cli({"run", "--subject", healthy(), "--subject", twin, "--properties", "pe.bounded",
                             "--cases", "10", "--report-dir", temp_dir("pecheck-console")});
  BOOST_TEST(both.exit_code == 0, both.output);
  BOOST_TEST(has(both.output, "crash-later 10000000"), both.output);
  BOOST_TEST(!std::regex_search(both.output, std::regex("\npe +misbehaving-crash-later ")), both.output);
}

BOOST_AUTO_TEST_CASE(a_random_seed_is_printed_and_reruns_the_run) {
  const std::string dir = temp_dir("pecheck-console");
  const auto r = run_cli({"run", "--subject", "builtin:normalized", "--properties", "pe.length_independence",
                          "--cases", "20", "--seed", "random", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(r.output, m, std::regex("seed ([0-9]+) \\(drawn by --seed random; --seed \\1 "
                                                                  "reruns this run\\)")),
                        r.output);
  const json first = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(first["seed"].get<std::uint64_t>() == std::stoull(m[1].str()));

  const std::string again_dir = temp_dir("pecheck-console");
  const auto again = run_cli({"run", "--subject", "builtin:normalized", "--properties", "pe.length_independence",
                              "--cases", "20", "--seed", m[1].str(), "--report-dir", again_dir});
  const json second = json::parse(read_file(again_dir + "/report.json"));
  BOOST_TEST(first["results"][0]["counterexample"] == second["results"][0]["counterexample"]);
  BOOST_TEST(!has(again.output, "drawn by --seed random"), again.output);
}

BOOST_AUTO_TEST_CASE(an_expected_violation_prints_its_witness_in_one_line) {
  const auto r = run_cli({"run", "--subject", "builtin:integer", "--properties", "pe.bounded", "--cases", "20",
                          "--report-dir", temp_dir("pecheck-console")});
  BOOST_TEST(r.exit_code == 0, r.output);
  // One line: where, the small inputs, observed, expected, error against bound.
  BOOST_TEST(std::regex_search(r.output, std::regex("\n       witness at position [0-9]+, component [0-9]+ \\(dim [0-9]+, "
                                                    "position [0-9]+, seq_len [0-9]+\\): observed [-0-9.e]+, expected "
                                                    "\"\\|value\\| <= 1\" \\(error [-0-9.e]+ > bound [-0-9.e+]+\\)\n")),
             r.output);
}

BOOST_AUTO_TEST_CASE(a_subject_failure_shows_its_stderr_and_a_rerun_that_reproduces_it) {
  const std::string crashing = "cmd:/usr/bin/python3 " + kSource + "/tests/subjects/misbehaving.py crash-later 30";
  const std::string dir = temp_dir("pecheck-console");
  const auto r = run_cli({"run", "--subject", crashing, "--cases", "20", "--seed", "1", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 3, r.output);
  BOOST_TEST(has(r.output, "its stderr ends:\n         | planted crash on request 30 after 29 good answers"), r.output);
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(r.output, m, std::regex("\nRerun what failed:\n  [a-z_.]+ "
                                                                  "\\[misbehaving-crash-later\\]: ([^\n]+)\n")),
                        r.output);
  // The rerun is the whole run (the crash depends on what came before), and it crashes the same way.
  const Shell again = shell(m[1].str());
  BOOST_TEST(again.exit_code == 3, again.output);
  BOOST_TEST(has(again.output, "the subject ended (exit 70) before answering request 30"), again.output);

  // A subject that cannot start shows its stderr too.
  const auto start = run_cli({"run", "--subject",
                              "cmd:/usr/bin/python3 " + kSource + "/tests/subjects/misbehaving.py no-such-mode",
                              "--report-dir", temp_dir("pecheck-console")});
  BOOST_TEST(start.exit_code == 3, start.output);
  BOOST_TEST(has(start.output, "its stderr ends:\n         | usage: misbehaving.py {"), start.output);
}

BOOST_AUTO_TEST_CASE(colour_and_live_progress_on_a_terminal_only) {
  const std::vector<std::string> args = {"--subject", healthy(), "--properties", "history_independence",
                                         "--properties", "pe.bounded", "--cases", "12", "--report-dir",
                                         temp_dir("pecheck-console")};
  const Shell tty = on_terminal("", args);
  BOOST_TEST(tty.exit_code == 0, tty.output);
  BOOST_TEST(has(tty.output, "\x1b[32mok  \x1b[0m pe.bounded"), tty.output);
  // Inside the slow cell (a fresh process per case): cases done of asked, redrawn in place (asked:
  // the 12 cases, and the shape ladder's 16, 64 and 256 requests long scripts after them).
  BOOST_TEST(std::regex_search(tty.output, std::regex("\r\x1b\\[K\\.\\.\\. history_independence "
                                                      "\\[misbehaving-crash-later\\] [0-9]+/15 cases, [0-9.]+ s")),
             tty.output);

  const Shell plain = on_terminal("NO_COLOR=1", args);
  BOOST_TEST(plain.exit_code == 0, plain.output);
  BOOST_TEST(!has(plain.output, "\x1b[32m"), plain.output);
  BOOST_TEST(has(plain.output, "ok   pe.bounded"), plain.output);

  // A pipe: a line per cell, no colour, no progress redraws.
  const auto piped = run_cli({"run", args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8],
                              temp_dir("pecheck-console")});
  BOOST_TEST(piped.exit_code == 0, piped.output);
  BOOST_TEST(!has(piped.output, "\x1b["), piped.output);
  BOOST_TEST(!has(piped.output, "\r"), piped.output);
  BOOST_TEST(has(piped.output, "ok   history_independence"), piped.output);
}

BOOST_AUTO_TEST_CASE(junit_messages_carry_the_witness) {
  const std::string dir = temp_dir("pecheck-console");
  const auto r = run_cli({"run", "--subject", "mutant:attention-causal-always", "--properties",
                          "attention.permutation_equivariance", "--cases", "50", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 1, r.output);
  const std::string junit = read_file(dir + "/junit.xml");
  BOOST_TEST(std::regex_search(junit, std::regex("<failure message=\"expected holds, observed violated: at [a-z]+ [0-9]+, "
                                                 "column [0-9]+ \\([^)]*\\): observed [-0-9.e]+, expected [-0-9.e]+ "
                                                 "\\(error [-0-9.e]+ &gt; bound [-0-9.e+]+\\)\"")),
             junit);
}

BOOST_AUTO_TEST_SUITE_END()  // test_console

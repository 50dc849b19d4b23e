// Fresh copies by fork (docs/SUBJECT-PROTOCOL.md, "Fresh copies by fork"),
// end to end through the CLI and the subject factory:
//   a subject that declares fork is started once, and each job's instance and
//   each fresh copy history_independence compares with is a copy forked from
//   it; --no-fork starts them afresh, with the same results;
//   the cache bugs history_independence exists for fail it with the same
//   shortest scripts through forked copies as through processes started afresh;
//   a broken fork (a copy that dies, never connects, is not a new child of the
//   zygote, or answers hello otherwise) is a subject failure, never a verdict;
//   no copy, and nothing a copy starts, outlives the run.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "pecheck/core/shell_quote.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_fork_copies)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip, state;
  return (stat >> skip >> skip >> state) && state != "Z" && state != "X";
}

// `pecheck serve SPEC` as a cmd: subject: the C++ zygote (it declares fork).
std::string served(const std::string& spec) { return "cmd:" + shell_quote(pecheck::testing::ctest_env("PECHECK_BIN")) + " serve " + spec; }

const json& result_of(const Run& run, const std::string& property) {
  const json* r = run.result(property);
  BOOST_REQUIRE_MESSAGE(r != nullptr, property << " did not run:\n" << run.console);
  return *r;
}

// The pids of the processes tests/subjects/forking_daemons.py marked as `kind` in `dir`.
std::vector<pid_t> marked(const std::string& dir, const std::string& kind) {
  std::vector<pid_t> pids;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kind + "-", 0) == 0) pids.push_back(std::stoi(name.substr(kind.size() + 1)));
  }
  return pids;
}

// Waits up to a second for every pid to be gone; the ones still running.
std::vector<pid_t> still_running(const std::vector<pid_t>& pids) {
  std::vector<pid_t> left = pids;
  for (int i = 0; i < 100 && !left.empty(); ++i) {
    std::erase_if(left, [](pid_t pid) { return !running(pid); });
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return left;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_subject_that_declares_fork_answers_through_copies_and_makes_fresh_ones) {
  SubjectOptions options;
  SubjectPtr subject = make_subject(served("builtin:sinusoidal"), options);
  BOOST_TEST(makes_fresh_copies(*subject));
  const auto& declared = subject->info().declared;
  BOOST_TEST((std::find(declared.begin(), declared.end(), "fork") != declared.end()));
  const Matrix first = ask::encode(*subject, 8, {0, 3, 5}, 6);
  SubjectPtr copy = fresh_copy_of(*subject);
  BOOST_REQUIRE(copy != nullptr);
  BOOST_TEST(copy->info().name == subject->info().name);
  BOOST_TEST((ask::encode(*copy, 8, {0, 3, 5}, 6) == first));
  BOOST_TEST(makes_fresh_copies(*copy), "a copy makes copies too");

  // --no-fork: the same subject, talked to as one that makes no copies.
  options.fork = false;
  SubjectPtr started = make_subject(served("builtin:sinusoidal"), options);
  BOOST_TEST(!makes_fresh_copies(*started));
  const auto& plain = started->info().declared;
  BOOST_TEST((std::find(plain.begin(), plain.end(), "fork") == plain.end()));
  BOOST_TEST((ask::encode(*started, 8, {0, 3, 5}, 6) == first));
}

BOOST_AUTO_TEST_CASE(cache_bugs_fail_history_independence_with_the_same_scripts_through_forked_copies) {
  // The planted cache bugs of history_independence (planted/catches_modules.cpp)
  // behind `pecheck serve` (a zygote): the shortest script through forked
  // copies is the one found starting every copy afresh (the same spec, so the
  // same seed and the same cases).
  for (const char* mutant : {"llama-rotary-cache-by-length", "llama-ntk-cache-never-shrinks", "llama-reset-keeps-cache"}) {
    BOOST_TEST_CONTEXT(mutant) {
      const std::vector<std::string> args = {"--subject", served(std::string("mutant:") + mutant), "--properties",
                                             "history_independence", "--cases", "100", "--jobs", "1"};
      const Run forked = run_pecheck(args, 120);
      std::vector<std::string> afresh_args = args;
      afresh_args.push_back("--no-fork");
      const Run afresh = run_pecheck(afresh_args, 120);
      BOOST_TEST(forked.exit_code == 1, forked.console);
      BOOST_TEST(afresh.exit_code == 1, afresh.console);
      const json& f = result_of(forked, "history_independence");
      const json& a = result_of(afresh, "history_independence");
      BOOST_REQUIRE(f.contains("counterexample"));
      BOOST_REQUIRE(a.contains("counterexample"));
      BOOST_TEST(f["counterexample"]["inputs"] == a["counterexample"]["inputs"],
                 f["counterexample"]["inputs"].dump() << " vs " << a["counterexample"]["inputs"].dump());
      BOOST_TEST(f["counterexample"]["inputs"].size() <= 4u, f["counterexample"]["inputs"].dump());
      BOOST_TEST(f["counterexample"]["error"] == a["counterexample"]["error"]);
    }
  }
}

BOOST_AUTO_TEST_CASE(python_cache_bugs_fail_through_forked_copies) {
  // transformers #25306 (a dynamic-NTK cache grown for a long sequence and
  // never scaled back) transcribed in NumPy: the shortest script is the long
  // request, then a short one — found in seconds through forked copies, where
  // starting each copy afresh takes minutes (a NumPy start-up per copy).
  const Run ntk = run_pecheck({"--subject", python_subject("tests/subjects/real/hf_llama_dynamic_ntk_cache.py"),
                               "--properties", "history_independence", "--cases", "100"},
                              120);
  BOOST_TEST(ntk.exit_code == 1, ntk.console);
  const json& r = result_of(ntk, "history_independence");
  BOOST_REQUIRE(r.contains("counterexample"));
  const json& script = r["counterexample"]["inputs"];
  BOOST_REQUIRE_MESSAGE(script.size() == 2u, script.dump());
  BOOST_TEST(script[0]["seq_len"].get<int>() > script[1]["seq_len"].get<int>(), script.dump());
  // A KV cache rotated at the wrong position is no history: a fresh copy
  // decoding the same tokens answers as wrongly. module.incremental_decoding
  // is its claim, and it fails it through forked copies too (the C++ and the
  // PyTorch twin).
  for (const std::string& subject : {served("mutant:llama-kv-cache-current-position"),
                                     python_subject("tests/subjects/llama_kv_cache_wrong_position.py")}) {
    BOOST_TEST_CONTEXT(subject) {
      const Run kv = run_pecheck({"--subject", subject, "--properties", "module.incremental_decoding",
                                  "--properties", "history_independence", "--cases", "30"},
                                 120);
      BOOST_TEST(kv.exit_code == 1, kv.console);
      BOOST_TEST(result_of(kv, "module.incremental_decoding")["status"] == "failed", kv.console);
      BOOST_TEST(result_of(kv, "history_independence")["status"] == "passed", kv.console);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_broken_fork_is_a_subject_failure_never_a_verdict) {
  struct Case {
    const char* mode;
    const char* says;
  };
  for (const Case c : {Case{"dies", "ended (exit 7) before connecting"},
                       Case{"never-connects", "did not connect to its stderr socket"},
                       Case{"inline", "started before the fork request"},
                       Case{"reuse", "started before the fork request"},
                       Case{"chain", "forked from another copy"},
                       Case{"wrong-hello", "answered hello unlike the process it was forked from"},
                       Case{"refuses", "refused request 1 (fork) although its hello declares fork"}}) {
    BOOST_TEST_CONTEXT(c.mode) {
      for (const char* jobs : {"1", "2"}) {
        const Run run = run_pecheck({"--subject", python_subject("tests/subjects/broken_fork.py", c.mode),
                                     "--properties", "history_independence", "--properties", "pe.bounded", "--cases",
                                     "30", "--subject-timeout", "2", "--jobs", jobs},
                                    60);
        BOOST_TEST(run.exit_code == 3, run.console);
        BOOST_TEST(contains(run.console, c.says), run.console);
        // Copies checked before the broken one may have given pe.bounded its verdict; no copy after it.
        BOOST_TEST(result_of(run, "history_independence")["status"] != "passed", run.console);
      }
    }
  }
  // The control: a correct zygote serving the same cached encoder. Its bug
  // (the table cached by length, the offset ignored) is a verdict.
  const Run control = run_pecheck({"--subject", python_subject("tests/subjects/broken_fork.py", "ok"), "--properties",
                                   "history_independence", "--cases", "30"},
                                  60);
  BOOST_TEST(control.exit_code == 1, control.console);
  BOOST_TEST(result_of(control, "history_independence")["status"] == "failed", control.console);
}

BOOST_AUTO_TEST_CASE(a_broken_zygote_is_named_not_the_copy_it_took_down) {
  // Issue 39's lost diagnoses: the copy in use dies with its zygote, and its
  // "ended before answering" used to be all the report said; a zygote that
  // exited while its copies held its stdout was waited for 60 s.
  struct Case {
    const char* mode;
    const char* says;
  };
  for (const Case c : {Case{"garbage", "a copy that prints there"},
                       Case{"twice", "answered fork request 2 twice"},
                       Case{"exits", "ended (exit 0) before answering request 3 (fork)"},
                       Case{"connects-twice", "connected to its conversation socket"}}) {
    BOOST_TEST_CONTEXT(c.mode) {
      const auto started = std::chrono::steady_clock::now();
      const Run run = run_pecheck({"--subject", python_subject("tests/subjects/broken_fork.py", c.mode),
                                   "--properties", "history_independence", "--cases", "30", "--subject-timeout", "2",
                                   "--jobs", "1"},
                                  60);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      BOOST_TEST(run.exit_code == 3, run.console);
      BOOST_TEST(contains(run.console, c.says), run.console);
      BOOST_TEST(seconds < 20.0, c.mode << " took " << seconds << " s");  // the fork floor is 60 s
    }
  }
}

BOOST_AUTO_TEST_CASE(a_slow_fork_answer_is_no_failure_a_copy_that_never_connects_is) {
  // The fork answer has at least 60 s (a loaded kernel can hold fork(2) for
  // seconds); the copy's connection keeps the subject timeout, so the
  // never-connects mode above still fails within it.
  const Run run = run_pecheck({"--subject", python_subject("tests/subjects/broken_fork.py", "slow-fork"),
                               "--properties", "history_independence", "--cases", "30", "--subject-timeout", "1",
                               "--jobs", "1"},
                              60);
  BOOST_TEST(run.exit_code == 1, run.console);
  BOOST_TEST(result_of(run, "history_independence")["status"] == "failed", run.console);
}

BOOST_AUTO_TEST_CASE(the_subject_starts_once_and_no_copy_or_daemon_outlives_the_run) {
  // Issue 39: daemons that also exec with an empty environment (no marker)
  // outlived such runs (107 `sleep` processes after 20 cases); pecheck, their
  // subreaper, kills every process reparented to it before it exits.
  for (const auto& [terminate_after, exec_empty] : {std::pair{0.0, false}, {3.0, false}, {0.0, true}, {3.0, true}}) {
    BOOST_TEST_CONTEXT((terminate_after > 0 ? "stopped by SIGTERM" : "run to the end")
                       << (exec_empty ? ", daemons exec'd with an empty environment" : "")) {
      const std::string dir = pecheck::testing::temp_dir("fork-daemons");
      setenv("PECHECK_TEST_PROCESS_DIR", dir.c_str(), 1);
      if (exec_empty) setenv("PECHECK_TEST_DAEMON_EXEC", "1", 1);
      const Run run = run_pecheck({"--subject", python_subject("tests/subjects/forking_daemons.py"), "--properties",
                                   "history_independence", "--properties", "pe.bounded", "--properties",
                                   "pe.offset_only_dot", "--cases", terminate_after > 0 ? "100000" : "40", "--jobs",
                                   "2"},
                                  120, terminate_after);
      unsetenv("PECHECK_TEST_PROCESS_DIR");
      unsetenv("PECHECK_TEST_DAEMON_EXEC");
      BOOST_TEST(run.exit_code == (terminate_after > 0 ? 143 : 0), run.console);
      // One start-up for two jobs and every fresh copy, and one started anew for each probe with which
      // history_independence proves the forked copies fresh (its answer is kept for the cell's later proofs).
      const std::size_t starts = marked(dir, "start").size();
      BOOST_TEST((terminate_after > 0 ? starts >= 1u && starts <= 4u : starts >= 2u && starts <= 4u),
                 "start-ups: " << starts);
      const std::vector<pid_t> copies = marked(dir, "copy"), daemons = marked(dir, "daemon");
      BOOST_TEST(copies.size() >= 3u, "each job's copy and fresh copies: " << copies.size());
      BOOST_TEST(!daemons.empty());
      BOOST_TEST(still_running(copies).empty(), "a forked copy outlived the run");
      BOOST_TEST(still_running(daemons).empty(), "a daemon a forked copy started outlived the run");
      std::filesystem::remove_all(dir);
    }
  }
}

BOOST_AUTO_TEST_CASE(pecheck_kills_what_is_reparented_to_it_marker_or_not) {
  // Started afresh (--no-fork), no zygote stands between: each start of the
  // script leaves a daemon out of its group and without its marker, an
  // orphan of pecheck (its subreaper), killed before pecheck exits.
  const std::string dir = pecheck::testing::temp_dir("fork-daemons-afresh");
  setenv("PECHECK_TEST_PROCESS_DIR", dir.c_str(), 1);
  setenv("PECHECK_TEST_DAEMON_EXEC", "1", 1);
  const Run run = run_pecheck({"--subject", python_subject("tests/subjects/forking_daemons.py"), "--properties",
                               "history_independence", "--cases", "10", "--jobs", "1", "--no-fork"},
                              120);
  unsetenv("PECHECK_TEST_PROCESS_DIR");
  unsetenv("PECHECK_TEST_DAEMON_EXEC");
  BOOST_TEST(run.exit_code == 0, run.console);
  const std::vector<pid_t> daemons = marked(dir, "daemon");
  BOOST_TEST(marked(dir, "start").size() >= 2u, "started afresh for fresh copies");
  BOOST_TEST(daemons.size() >= 2u);
  BOOST_TEST(still_running(daemons).empty(), "a daemon with an empty environment outlived the run");
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(forked_copies_sharing_memory_are_not_trusted_as_fresh) {
  // Issue 39: a cache in memory mapped before the first fork is every copy's;
  // forked copies alone can see no history difference (green), copies started
  // anew do (red). pecheck compares a forked copy with one started anew twice
  // per cell (a subject failure, exit 3) and for every counterexample (its
  // diagnosis): either way the shared state is named.
  const Run run = run_pecheck({"--subject", python_subject("tests/subjects/shared_memory_cache.py"), "--properties",
                               "history_independence", "--cases", "30", "--no-regressions"},
                              120);
  BOOST_TEST((run.exit_code == 1 || run.exit_code == 3), run.console);
  BOOST_TEST(run.console.find("forked copies are not fresh") != std::string::npos, run.console);
  BOOST_TEST(run.console.find("state is shared across forks") != std::string::npos, run.console);
  // The same bug kept per process: the forked copies are fresh, and the history difference is found.
  setenv("PECHECK_TEST_PER_PROCESS", "1", 1);
  const Run own = run_pecheck({"--subject", python_subject("tests/subjects/shared_memory_cache.py"), "--properties",
                               "history_independence", "--cases", "30", "--no-regressions"},
                              120);
  unsetenv("PECHECK_TEST_PER_PROCESS");
  BOOST_TEST(own.exit_code == 1, own.console);
  BOOST_TEST(own.console.find("not fresh") == std::string::npos, own.console);
}

// Issue 39, the hostile pass's open finding: at 20 cases no search script
// passes the 64 tokens that grow the shared cache; the ladder's long scripts
// do, but each ladder case proved forked copies fresh with a memory of its
// own (after its 5th script, which it never has, and with its own long probe,
// which a new process answers alike); and its probe, the shortest request,
// was often position 0 alone, the same under any frequencies. The proof is
// now the cell's, made after a script that reaches further than any before,
// with the shortest request past position 0: red at 20 cases (at the
// default seed from 2, where --no-fork first sees the bug too; at 1 case no
// request passes 64 tokens, so the cache never grows: nothing to catch).
BOOST_AUTO_TEST_CASE(forked_copies_sharing_memory_are_caught_at_any_case_count) {
  for (const char* cases : {"20"}) {
    const Run run = run_pecheck({"--subject", python_subject("tests/subjects/shared_memory_cache.py"), "--properties",
                                 "history_independence", "--cases", cases, "--no-regressions"},
                                120);
    BOOST_TEST(run.exit_code == 3, cases << " cases: " << run.console);
    BOOST_TEST(run.console.find("forked copies are not fresh") != std::string::npos, run.console);
    BOOST_TEST(run.console.find("state is shared across forks") != std::string::npos, run.console);
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_fork_copies

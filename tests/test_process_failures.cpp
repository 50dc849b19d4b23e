// End to end through the CLI: a subject that crashes, hangs, floods or breaks
// the protocol (tests/subjects/misbehaving.py) ends the run with exit code 3,
// within the timeout, with reports that name what went wrong (the request,
// what came back, the stderr tail, the exit status), keep the results already
// obtained, and leave no subject process behind.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_process_failures)

using namespace pecheck::testing::process_cli;
using pecheck::json;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip, state;
  return (stat >> skip >> skip >> state) && state != "Z" && state != "X";
}

// The pid file misbehaving.py writes as each subject process starts
// (PECHECK_TEST_PIDFILE), asked for while this lives.
struct SubjectPidFile {
  std::string path;
  explicit SubjectPidFile(std::string where) : path(std::move(where)) {
    std::remove(path.c_str());
    setenv("PECHECK_TEST_PIDFILE", path.c_str(), 1);
  }
  ~SubjectPidFile() {
    unsetenv("PECHECK_TEST_PIDFILE");
    std::remove(path.c_str());
  }
  SubjectPidFile(const SubjectPidFile&) = delete;
  SubjectPidFile& operator=(const SubjectPidFile&) = delete;
  pid_t pid() const {
    pid_t pid = 0;
    std::ifstream(path) >> pid;
    return pid;
  }
};

// Runs a misbehaving subject with a pid file, and checks that its process is
// gone once pecheck has exited.
Run run_misbehaving(const std::string& mode, std::vector<std::string> extra = {}, double terminate_after = 0) {
  const SubjectPidFile pidfile("/tmp/pecheck-failures-" + std::to_string(getpid()) + ".pid");
  std::vector<std::string> args{"--subject", python_subject("tests/subjects/misbehaving.py", mode), "--properties",
                                "pe.*", "--cases", "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  Run run = run_pecheck(args, 30, terminate_after, terminate_after > 0 ? pidfile.path : "");
  const pid_t pid = pidfile.pid();
  BOOST_TEST(pid > 0, "the subject started");
  if (pid > 0) {
    for (int i = 0; i < 100 && running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(!running(pid), "subject process " << pid << " outlived pecheck");
  }
  return run;
}

// The result that recorded the failure; every other result of the subject
// after it is skipped, every one before it kept.
const json& failed_result(const Run& run) {
  const json* failed = nullptr;
  for (const auto& r : run.report["results"]) {
    if (failed) {
      BOOST_TEST(r["status"] == "skipped");
      BOOST_TEST(contains(r["message"], "not run: the subject failed during"));
    } else if (r.contains("subject_failure")) {
      failed = &r;
    } else {
      BOOST_TEST(r["status"] == "passed", "a result obtained before the failure is kept: " << r.dump());
    }
  }
  BOOST_REQUIRE(failed != nullptr);
  BOOST_TEST((*failed)["status"] == "error");
  return *failed;
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_misbehaviour_ends_in_exit_3_with_reports_naming_it) {
  struct Expected {
    const char* mode;
    const char* message;
    const char* received;
    const char* stderr_tail;
    const char* status;
  };
  const Expected cases[] = {
      {"crash-after-hello", "ended (exit 1) before answering request 1 (encode)", "(nothing)",
       "RuntimeError: planted crash", "exit 1"},
      {"killed", "before answering request 1 (encode)", "(nothing)", "as by the OOM killer", "SIGKILL"},
      {"garbage", "answered request 1 (encode) with a line that is not JSON", "loading weights... \\x1b[31m", "",
       "still running"},
      {"wrong-id", "answered request 1 (encode) with id 2 instead of 1", "\"id\": 2", "", "still running"},
      {"wrong-shape", "answered request 1 (encode) with a result of the wrong shape", "\"result\": [[", "",
       "still running"},
      {"flood-stdout", "more than 1 MiB without a newline answering request 1 (encode)", "(1", "",
       "still running"},
      // A key given twice: a reader that keeps the last value would take this for the answer to 1.
      {"duplicate-id", "answered request 1 (encode) with an object with the key \"id\" twice", "\"id\": 1}", "",
       "still running"},
      {"overflow", "answered request 1 (encode) with a number out of the range of a double", "[[1e400, ",
       "planted overflow", "still running"},
      // One JSON value per line and nothing else: a reader that stops at the NUL would take this answer.
      {"nul-garbage", "answered request 1 (encode) with a NUL byte at byte", "\\x00garbage", "", "still running"},
      {"bom", "answered request 1 (encode) with a UTF-8 byte-order mark", "{\"id\": 1", "", "still running"},
      // Arrays only in the encodings declared: this hello says "arrays": [].
      {"b64le-undeclared", "answered request 1 (encode) with a b64le array, an encoding the subject did not declare",
       "\"b64le\": ", "", "still running"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("mode " << c.mode) {
      const Run run = run_misbehaving(c.mode);
      BOOST_TEST(run.exit_code == 3, run.console);
      BOOST_TEST(run.seconds < 10 * pecheck::testing::time_scale());
      BOOST_TEST(run.max_rss_kib < 400 * 1024 * pecheck::testing::memory_scale(),
                 "a flood must not exhaust memory (max RSS " << run.max_rss_kib << " KiB)");
      BOOST_REQUIRE(run.report.is_object());
      BOOST_TEST(run.report["exit_code"] == 3);
      const json& f = failed_result(run)["subject_failure"];
      BOOST_TEST(contains(f["message"], c.message), f.dump());
      BOOST_TEST(contains(f["request"], R"({"id":1,"op":"encode","dim":)"), f["request"]);
      BOOST_TEST(contains(f["received"], c.received), f["received"]);
      BOOST_TEST(contains(f["stderr_tail"], c.stderr_tail), f["stderr_tail"]);
      BOOST_TEST(contains(f["exit_status"], c.status), f["exit_status"]);
      BOOST_TEST(contains(run.console, "subject failure"), run.console);
      // The other formats carry it too.
      std::stringstream junit;
      junit << std::ifstream(run.report_dir + "/junit.xml").rdbuf();
      BOOST_TEST(contains(junit.str(), "request 1 (encode)"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_subject_that_closes_its_stdout_is_seen_at_once_not_at_the_timeout) {
  // Exec'd directly, the subject holds the only write end of its stdout: its
  // close is end of input at once (a shell in between would hold it open).
  const Run run = run_misbehaving("silent-close", {"--subject-timeout", "30"});
  BOOST_TEST(run.exit_code == 3, run.console);
  BOOST_TEST(run.seconds < 5 * pecheck::testing::time_scale(), "seen within the exit grace (1 s), not the 30 s timeout");
  const json& f = failed_result(run)["subject_failure"];
  BOOST_TEST(f["message"] == "the subject closed its output before answering request 1 (encode)");
  BOOST_TEST(f["exit_status"] == "still running");
}

BOOST_AUTO_TEST_CASE(processes_that_left_the_subjects_group_are_gone_after_the_run) {
  for (const std::string mode : {"escape", "daemon"}) {
    BOOST_TEST_CONTEXT("mode " << mode) {
      const std::string pidfile = "/tmp/pecheck-escaped-" + std::to_string(getpid()) + ".pid";
      std::remove(pidfile.c_str());
      setenv("PECHECK_TEST_GRANDCHILD_PIDFILE", pidfile.c_str(), 1);
      const Run run = run_misbehaving(mode);
      unsetenv("PECHECK_TEST_GRANDCHILD_PIDFILE");
      BOOST_TEST(run.exit_code == 0, run.console);
      pid_t escaped = 0;
      std::ifstream(pidfile) >> escaped;
      std::remove(pidfile.c_str());
      BOOST_REQUIRE(escaped > 0);
      for (int i = 0; i < 100 && running(escaped); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      BOOST_TEST(!running(escaped), "process " << escaped << " left the subject's group (setsid) and outlived pecheck");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_hanging_subject_ends_within_the_subject_timeout) {
  const Run run = run_misbehaving("hang", {"--subject-timeout", "2"});
  BOOST_TEST(run.exit_code == 3, run.console);
  BOOST_TEST(run.seconds > 1.9);
  BOOST_TEST(run.seconds < 5 * pecheck::testing::time_scale(), "the timeout is 2 s, Python starts in well under a second");
  const json& f = failed_result(run)["subject_failure"];
  BOOST_TEST(f["message"] == "the subject did not answer request 1 (encode) within 2 s");
  BOOST_TEST(f["exit_status"] == "still running");
  BOOST_TEST(contains(f["stderr_tail"], "hanging on request 1"));
}

BOOST_AUTO_TEST_CASE(a_subject_silent_before_hello_fails_to_start_within_the_timeout) {
  const Run run = run_misbehaving("hang-before-hello", {"--subject-timeout", "1"});
  BOOST_TEST(run.exit_code == 3, run.console);
  BOOST_TEST(run.seconds < 4 * pecheck::testing::time_scale());
  const json* f = run.start_failure();
  BOOST_REQUIRE(f != nullptr);
  BOOST_TEST((*f)["message"] == "the subject did not answer request 0 (hello) within 1 s");
  // junit.xml carries it as an erroring test case, so a CI gate sees it.
  BOOST_TEST(contains(run.junit, "subject start ["), run.junit.substr(0, 400));
}

BOOST_AUTO_TEST_CASE(results_obtained_before_a_crash_are_kept) {
  // 20 cases of pe.bounded (no shrinking: it holds) come first, then the crash.
  const Run run = run_misbehaving("crash-later 25");
  BOOST_TEST(run.exit_code == 3, run.console);
  BOOST_TEST(run.outcome("pe.bounded") == "holds");
  const json& failed = failed_result(run);
  BOOST_TEST(failed["property"] != "pe.bounded");
  BOOST_TEST(contains(failed["subject_failure"]["message"], "ended (exit 70) before answering request 25"));
  BOOST_TEST(contains(failed["subject_failure"]["stderr_tail"], "planted crash on request 25 after 24 good answers"));
}

BOOST_AUTO_TEST_CASE(a_subject_flooding_stderr_is_drained_and_only_its_tail_kept) {
  // Two megabytes of stderr per request, then a crash on the fifth: a harness
  // that did not drain stderr would block the subject and time out instead.
  const Run run = run_misbehaving("flood-stderr");
  BOOST_TEST(run.exit_code == 3, run.console);
  BOOST_TEST(run.seconds < 5 * pecheck::testing::time_scale());
  const json& f = failed_result(run)["subject_failure"];
  BOOST_TEST(contains(f["message"], "ended (exit 1) before answering request 5"));
  const std::string tail = f["stderr_tail"];
  BOOST_TEST(tail.size() < 9000u);
  BOOST_TEST(contains(tail, "earlier bytes of stderr not kept"));
  BOOST_TEST(tail.substr(tail.size() - 29) == "final words before the crash\n");
}

BOOST_AUTO_TEST_CASE(subjects_that_cannot_start_are_reported_and_the_others_still_run) {
  const std::string missing_script = python_subject("tests/subjects/does_not_exist.py");
  const Run run = run_pecheck({"--subject", missing_script, "--subject", "cmd:/nonexistent/interpreter x.py",
                               "--subject", "builtin:sinusoidal", "--properties", "pe.bounded", "--cases", "20"},
                              30);
  BOOST_TEST(run.exit_code == 3, run.console);
  int starts = 0;
  for (const auto& s : run.report["subjects"]) {
    if (!s.contains("start_failure")) continue;
    ++starts;
    const json& f = s["start_failure"];
    BOOST_TEST(f["request"] == R"({"id":0,"op":"hello","protocol":2})");
    if (s["spec"] == missing_script) {
      BOOST_TEST(contains(f["message"], "before answering request 0 (hello)"), f.dump());
      BOOST_TEST(f["exit_status"] == "exit 2");
      BOOST_TEST(contains(f["stderr_tail"], "can't open file"));
    } else {
      // Exec'd directly (no shell in between): it never started.
      BOOST_TEST(f["message"] ==
                 "could not start the subject: cannot execute /nonexistent/interpreter: No such file or directory");
      BOOST_TEST(f["exit_status"] == "not started");
    }
  }
  BOOST_TEST(starts == 2);
  for (const auto& r : run.report["results"]) {
    BOOST_TEST(r["subject"] == "builtin:sinusoidal");
    BOOST_TEST(r["status"] == "passed");
  }
}

BOOST_AUTO_TEST_CASE(a_crash_while_shrinking_is_a_subject_failure_not_a_violation) {
  // The subject violates pe.bounded at large positions and dies at the small
  // ones shrinking tries: the verdict is the failure, with no counterexample
  // claimed for a case the subject never answered.
  const Run run = run_misbehaving("crash-while-shrinking");
  BOOST_TEST(run.exit_code == 3, run.console);
  const json* r = run.result("pe.bounded");
  BOOST_REQUIRE(r != nullptr);
  BOOST_TEST((*r)["outcome"] == "error");
  BOOST_TEST(!r->contains("counterexample"));
  BOOST_TEST(contains((*r)["subject_failure"]["stderr_tail"], "planted crash at a small position"));
  BOOST_TEST(counterexample_files(run).empty());
}

BOOST_AUTO_TEST_CASE(a_terminated_pecheck_takes_its_hanging_subject_with_it) {
  // Subjects run in their own process group, so a CI job's SIGTERM reaches
  // pecheck alone: it kills the subject at once, then writes what it has,
  // marked interrupted, and exits 128 + SIGTERM.
  const Run run = run_misbehaving("hang", {"--subject-timeout", "60"}, 1.0);
  BOOST_TEST(run.exit_code == 143, run.console);
  BOOST_TEST(run.seconds < 5 * pecheck::testing::time_scale());
  BOOST_REQUIRE(!run.report.is_null());
  BOOST_TEST(run.report["interrupted"] == "SIGTERM");
  BOOST_TEST(run.report["exit_code"] == 143);
  // The hanging request's cell is the stop's, not a subject failure; the rest were not started.
  for (const auto& r : run.report["results"]) {
    BOOST_TEST(r["status"] == "skipped", r.dump());
    BOOST_TEST(!r.contains("subject_failure"), r.dump());
    BOOST_TEST(contains(r["message"], "interrupted by SIGTERM"), r.dump());
  }
  BOOST_TEST(contains(run.console, "INTERRUPTED by SIGTERM"), run.console);
  // run_misbehaving has checked that the hanging subject is gone.
}

BOOST_AUTO_TEST_CASE(a_stop_while_subjects_start_still_writes_the_report) {
  // SIGTERM during the hello (a subject slow to start), sent twice 10 ms
  // apart as `timeout` does (to pecheck, then to its process group): one
  // stop, a report marked interrupted naming the subjects not started.
  // The signals go 0.2 s after the subject has started (its pid file).
  const std::string dir = pecheck::testing::temp_dir("failures-stop-at-start");
  const SubjectPidFile pidfile(dir + "/subject.pid");
  const auto r = pecheck::testing::run_cli(
      {"run", "--no-regressions", "--report-dir", dir + "/reports", "--subject-timeout", "60", "--subject",
       python_subject("tests/subjects/misbehaving.py", "hang-before-hello"), "--subject", "builtin:sinusoidal"},
      {60, 0.2, 2, pidfile.path});
  BOOST_TEST(r.exit_code == 143, r.output);
  const json report = json::parse(pecheck::testing::read_file(dir + "/reports/report.json"));
  BOOST_TEST(report["interrupted"] == "SIGTERM");
  BOOST_TEST(report["exit_code"] == 143);
  BOOST_REQUIRE(report["subjects"].size() == 2u);
  for (const auto& s : report["subjects"]) {
    BOOST_TEST(contains(s["start_failure"]["message"], "not started: the run was interrupted by SIGTERM"), s.dump());
  }
  BOOST_TEST(contains(r.output, "INTERRUPTED by SIGTERM"), r.output);
}

BOOST_AUTO_TEST_CASE(an_interrupted_run_keeps_the_results_it_had) {
  // pe.bounded runs first and passes; history_independence (a fresh process
  // per case) is still running when SIGTERM comes, 2 s after the first
  // subject process started.
  const SubjectPidFile pidfile("/tmp/pecheck-interrupted-" + std::to_string(getpid()) + ".pid");
  const Run run = run_pecheck({"--subject", python_subject("tests/subjects/misbehaving.py", "crash-later 1000000"),
                               "--properties", "pe.bounded", "--properties", "history_independence", "--cases",
                               "2000"},
                              60, 2.0, pidfile.path);
  BOOST_TEST(run.exit_code == 143, run.console);
  BOOST_REQUIRE(!run.report.is_null());
  BOOST_TEST(run.report["interrupted"] == "SIGTERM");
  const auto& results = run.report["results"];
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0]["property"] == "pe.bounded");
  BOOST_TEST(results[0]["status"] == "passed", results[0].dump());
  BOOST_TEST(results[1]["status"] == "skipped", results[1].dump());
  BOOST_TEST(contains(results[1]["message"], "interrupted by SIGTERM after"), results[1].dump());
  BOOST_TEST(contains(run.junit, "interrupted by SIGTERM after"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_process_failures

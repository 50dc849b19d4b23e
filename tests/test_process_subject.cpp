// Process subjects in-process (src/subjects/process/process_subject.cpp and
// child_process.cpp): the handshake, answers as values, refusals, and every
// misbehaviour ending in a SubjectFailure that names what happened, within
// the timeout, with the child reaped (no zombie) and its group gone.
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "pecheck/reference/sinusoidal.h"
#include "subjects/process/child_process.h"
#include "pecheck/subjects/process_subject.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_process_subject)

using namespace pecheck;
using namespace std::chrono_literals;
using process::ChildProcess;
using process::Exchange;

namespace {

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}
std::string python(const std::string& script, const std::string& args = "") {
  return "/usr/bin/python3 '" + source_dir() + "/" + script + "'" + (args.empty() ? "" : " " + args);
}
std::string misbehaving(const std::string& mode) { return python("tests/subjects/misbehaving.py", mode); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// True when this process has no child left, running or zombie.
bool no_children() { return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// True while `pid` runs (a zombie, waiting for someone else to reap it, does not).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip, state;
  return (stat >> skip >> skip >> state) && state != "Z" && state != "X";
}
// True when `pid` stops running within a second (the kernel delivers SIGKILL
// asynchronously to the other members of a group).
bool not_running(pid_t pid) {
  for (int i = 0; i < 100 && running(pid); ++i) std::this_thread::sleep_for(10ms);
  return !running(pid);
}

SubjectFailure failure_of(Subject& s) {
  try {
    ask::encode(s, 2, {0}, 1);
  } catch (const SubjectFailure& f) {
    return f;
  }
  BOOST_FAIL("expected a SubjectFailure");
  throw std::logic_error("unreachable");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(child_process_exchanges_lines_and_reports_exit_statuses) {
  {
    ChildProcess cat("cat");
    std::string line;
    BOOST_TEST((cat.exchange("first\n", process::Clock::now() + 5s, 1 << 20, line) == Exchange::line));
    BOOST_TEST(line == "first");
    BOOST_TEST((cat.exchange("second\n", process::Clock::now() + 5s, 1 << 20, line) == Exchange::line));
    BOOST_TEST(line == "second");
    BOOST_TEST(cat.stop(1000ms) == "exit 0");  // cat exits at the end of its input
  }
  {
    ChildProcess exits("echo bye >&2; exit 3");
    std::string line;
    // It may be gone before the request is written, or after.
    const Exchange how = exits.exchange("x\n", process::Clock::now() + 5s, 1 << 20, line);
    BOOST_TEST((how == Exchange::closed || how == Exchange::stdin_closed));
    BOOST_TEST(exits.stop(1000ms) == "exit 3");
    BOOST_TEST(exits.stderr_tail() == "bye\n");
  }
  for (int i = 0; i < 5; ++i) {
    // It answers (and exits) without reading: its line counts, whether or not
    // it was gone before the request could be written.
    ChildProcess early("echo early answer");
    std::string line;
    BOOST_TEST((early.exchange("x\n", process::Clock::now() + 5s, 1 << 20, line) == Exchange::line));
    BOOST_TEST(line == "early answer");
  }
  {
    ChildProcess killed("kill -9 $$");
    std::string line;
    killed.exchange("x\n", process::Clock::now() + 5s, 1 << 20, line);
    BOOST_TEST(killed.stop(1000ms) == "signal 9 (SIGKILL)");
  }
  {
    // Exec'd directly, a program that does not exist cannot start at all...
    try {
      ChildProcess missing("/nonexistent/interpreter x.py");
      BOOST_FAIL("expected std::system_error");
    } catch (const std::system_error& e) {
      BOOST_TEST(std::string(e.what()) == "cannot execute /nonexistent/interpreter: No such file or directory");
    }
    // ...and under a shell, the shell says so in its exit status.
    ChildProcess missing("/nonexistent/interpreter 2>/dev/null");
    std::string line;
    missing.exchange("x\n", process::Clock::now() + 5s, 1 << 20, line);
    BOOST_TEST(missing.stop(1000ms) == "exit 127 (the command was not found)");
  }
  {
    ChildProcess sleeper("exec sleep 100");
    std::string line;
    const auto start = std::chrono::steady_clock::now();
    BOOST_TEST((sleeper.exchange("x\n", process::Clock::now() + 200ms, 1 << 20, line) == Exchange::timeout));
    BOOST_TEST(seconds_since(start) < 1.0);
    BOOST_TEST(sleeper.stop(0ms) == "still running");
  }
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(child_process_keeps_a_bounded_stderr_tail_and_caps_lines) {
  {
    // 3 MB of stderr before the answer: drained as it comes, only the tail kept.
    ChildProcess noisy("head -c 3000000 /dev/zero | tr '\\0' x >&2; echo the end >&2; echo done");
    std::string line;
    BOOST_TEST((noisy.exchange("x\n", process::Clock::now() + 10s, 1 << 20, line) == Exchange::line));
    BOOST_TEST(line == "done");
    noisy.stop(1000ms);
    const std::string tail = noisy.stderr_tail();
    BOOST_TEST(tail.size() < process::kStderrTail + 100);
    BOOST_TEST(contains(tail, "earlier bytes of stderr not kept"));
    BOOST_TEST(tail.substr(tail.size() - 8) == "the end\n");
  }
  {
    ChildProcess flood("head -c 5000000 /dev/zero | tr '\\0' 1; sleep 100");
    std::string received;
    BOOST_TEST((flood.exchange("x\n", process::Clock::now() + 10s, 1 << 20, received) == Exchange::too_long));
    BOOST_TEST(received.size() > (1u << 20));
    BOOST_TEST(received.size() < (1u << 20) + (1u << 17));
  }
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(stopping_kills_the_whole_process_group) {
  pid_t grandchild = 0;
  {
    ChildProcess shell("sleep 100 & echo $!; wait");
    std::string line;
    BOOST_REQUIRE((shell.exchange("", process::Clock::now() + 5s, 1 << 20, line) == Exchange::line));
    grandchild = std::stoi(line);
    BOOST_TEST(running(grandchild), "the sleep runs until its group is killed");
  }
  BOOST_TEST(not_running(grandchild));
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(the_numpy_example_says_hello_and_answers_reference_values) {
  const auto start = std::chrono::steady_clock::now();
  {
    auto s = make_process_subject(python("examples/python/numpy_sinusoidal.py"), {});
    const SubjectInfo& info = s->info();
    BOOST_TEST(format_spec(info.spec) == "cmd:" + python("examples/python/numpy_sinusoidal.py"));
    BOOST_TEST(info.name == "numpy-sinusoidal-float64");
    BOOST_TEST(name(info.dtype) == "float64");
    BOOST_TEST(name(info.layout) == "interleaved");
    BOOST_TEST(info.ops == static_cast<unsigned>(Op::encode));
    BOOST_TEST(info.scheme == "sinusoidal");
    const Positions positions{0, 5, 10, 9999};
    const Matrix got = ask::encode(*s, 16, positions, 10000);
    const Matrix want = reference::sinusoidal(16, positions, Layout::interleaved, 1.0);
    BOOST_TEST((got - want).cwiseAbs().maxCoeff() < 1e-12);
    // Refusals are answers about an input; the subject goes on.
    BOOST_CHECK_THROW(ask::encode(*s, 3, {0}, 1), Refusal);
    try {
      ask::encode(*s, 3, {0}, 1);
    } catch (const Refusal& r) {
      BOOST_TEST(contains(r.what(), "ValueError"), r.what());
    }
    BOOST_TEST(ask::encode(*s, 2, {1}, 2).rows() == 1);
    // What it does not implement, and more than one head, are refused without asking.
    BOOST_CHECK_THROW(ask::rotate(*s, {0}, Matrix::Ones(1, 2), std::nullopt), Refusal);
    BOOST_CHECK_THROW(ask::attention(*s, Matrix::Ones(1, 2), Matrix::Ones(1, 2), Matrix::Ones(1, 2),
                                   AttentionMask::none(), 1),
                      Refusal);
  }
  BOOST_TEST(seconds_since(start) < 5.0, "a well-behaved subject shuts down at once");
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(nan_answers_are_values_not_protocol_errors) {
  auto s = make_process_subject(python("tests/subjects/returns_nan.py"), {});
  const Matrix m = ask::encode(*s, 4, {100, 101}, 102);
  BOOST_TEST(std::isfinite(m(0, 0)));
  BOOST_TEST(std::isnan(m(1, 0)));
}

BOOST_AUTO_TEST_CASE(one_head_only_over_the_protocol) {
  auto s = make_process_subject(python("tests/subjects/inverted_mask.py"), {});
  const Matrix q = Matrix::Ones(2, 2);
  BOOST_CHECK_THROW(ask::attention(*s, q, q, q, AttentionMask::none(), 2), Refusal);
  BOOST_TEST(ask::attention(*s, q, q, q, AttentionMask::none(), 1).rows() == 2);
}

BOOST_AUTO_TEST_CASE(misbehaviours_are_subject_failures_naming_request_bytes_stderr_and_status) {
  struct Expected {
    const char* mode;
    const char* message;
    const char* received;
    const char* stderr_tail;
    const char* status;
  };
  const Expected cases[] = {
      {"crash-after-hello", "ended (exit 1) before answering request 1 (encode)", "(nothing)", "planted crash",
       "exit 1"},
      {"exit-quietly", "ended (exit 0) before answering request 1 (encode)", "(nothing)", "", "exit 0"},
      {"garbage", "answered request 1 (encode) with a line that is not JSON", "\\x1b[31mdone", "", "still running"},
      {"wrong-id", "answered request 1 (encode) with id 2 instead of 1", "\"id\": 2", "", "still running"},
      {"wrong-shape", "answered request 1 (encode) with a result of the wrong shape", "[[0.0]]", "",
       "still running"},
      {"not-numbers", "row 0, column 0 is not a number: \"zero\"", "zero", "", "still running"},
      {"flood-stdout", "more than 1 MiB without a newline answering request 1 (encode)", "bytes in all)", "",
       "still running"},
      {"duplicate-id", "answered request 1 (encode) with an object with the key \"id\" twice",
       "{\"id\": 2, \"result\": [[0.0, 1.0]], \"id\": 1}", "", "still running"},
      {"overflow", "answered request 1 (encode) with a number out of the range of a double (number overflow parsing '1e400')",
       "[[1e400, 1.0]]", "planted overflow", "still running"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("mode " << c.mode) {
      auto s = make_process_subject(misbehaving(c.mode), {});
      const SubjectFailure f = failure_of(*s);
      BOOST_TEST(contains(f.what(), c.message), f.what());
      BOOST_TEST(f.request == R"({"id":1,"op":"encode","dim":2,"positions":[0],"seq_len":1})");
      BOOST_TEST(contains(f.received, c.received), f.received);
      BOOST_TEST(f.received.size() < 3000u);
      BOOST_TEST(contains(f.stderr_tail, c.stderr_tail), f.stderr_tail);
      BOOST_TEST(f.exit_status == c.status);
      // The subject is dead: later calls fail at once with the same account.
      const auto start = std::chrono::steady_clock::now();
      const SubjectFailure again = failure_of(*s);
      BOOST_TEST(seconds_since(start) < 0.05);
      BOOST_TEST(std::string(again.what()) == f.what());
    }
  }
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(a_subject_that_closes_its_stdout_fails_at_once) {
  SubjectOptions patient;
  patient.timeout_seconds = 30;
  auto s = make_process_subject(misbehaving("silent-close"), patient);
  const auto start = std::chrono::steady_clock::now();
  const SubjectFailure f = failure_of(*s);
  BOOST_TEST(seconds_since(start) < 2.0, "seen within the exit grace, not the 30 s timeout");
  BOOST_TEST(std::string(f.what()) == "the subject closed its output before answering request 1 (encode)");
  s.reset();
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(processes_that_left_the_group_are_killed_and_reaped_when_the_subject_stops) {
  for (const std::string mode : {"escape", "daemon"}) {
    BOOST_TEST_CONTEXT("mode " << mode) {
      const std::string pidfile = "/tmp/pecheck-test-escaped-" + std::to_string(getpid());
      std::remove(pidfile.c_str());
      setenv("PECHECK_TEST_GRANDCHILD_PIDFILE", pidfile.c_str(), 1);
      auto s = make_process_subject(misbehaving(mode), {});
      unsetenv("PECHECK_TEST_GRANDCHILD_PIDFILE");
      BOOST_TEST(ask::encode(*s, 4, {0, 1}, 2).rows() == 2, "it serves correctly meanwhile");
      pid_t escaped = 0;
      for (int i = 0; i < 200 && !(std::ifstream(pidfile) >> escaped); ++i) std::this_thread::sleep_for(10ms);
      std::remove(pidfile.c_str());
      BOOST_REQUIRE(escaped > 0);
      BOOST_TEST(running(escaped));
      BOOST_TEST(getsid(escaped) != getsid(0), "it left the session (and group) the subject was started in");
      s.reset();
      BOOST_TEST(not_running(escaped));
      BOOST_TEST(no_children(), "killed, and reaped where it became pecheck's child (subreaper)");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_hanging_subject_fails_within_the_timeout_and_leaves_nothing_running) {
  const std::string pidfile = "/tmp/pecheck-test-hang-" + std::to_string(getpid());
  setenv("PECHECK_TEST_PIDFILE", pidfile.c_str(), 1);
  SubjectOptions options;
  options.timeout_seconds = 0.5;
  auto s = make_process_subject(misbehaving("hang"), options);
  unsetenv("PECHECK_TEST_PIDFILE");
  const auto start = std::chrono::steady_clock::now();
  const SubjectFailure f = failure_of(*s);
  BOOST_TEST(seconds_since(start) < 1.5);
  BOOST_TEST(contains(f.what(), "did not answer request 1 (encode) within 0.5 s"), f.what());
  BOOST_TEST(f.exit_status == "still running");
  BOOST_TEST(contains(f.stderr_tail, "hanging on request 1"));
  pid_t python_pid = 0;
  std::ifstream(pidfile) >> python_pid;
  std::remove(pidfile.c_str());
  BOOST_REQUIRE(python_pid > 0);
  BOOST_TEST(not_running(python_pid), "the hanging Python process must be killed with its group");
  s.reset();
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(subjects_that_cannot_start_or_greet_fail_at_the_handshake) {
  SubjectOptions quick;
  quick.timeout_seconds = 0.5;
  struct Expected {
    std::string command, message, stderr_tail, status;
  };
  const Expected cases[] = {
      {python("tests/subjects/does_not_exist.py"), "ended (exit 2) before answering request 0 (hello)",
       "can't open file", "exit 2"},
      {"/nonexistent/interpreter x.py",
       "could not start the subject: cannot execute /nonexistent/interpreter: No such file or directory", "",
       "not started"},
      {"/nonexistent/interpreter x.py 2>/dev/null", "ended (exit 127 (the command was not found)) before", "", "exit 127 (the command was not found)"},
      {misbehaving("bad-hello"), "answered request 0 (hello) with protocol 3", "", "still running"},
      {misbehaving("hang-before-hello"), "did not answer request 0 (hello) within 0.5 s", "", "still running"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.command) {
      try {
        make_process_subject(c.command, quick);
        BOOST_FAIL("expected a SubjectFailure");
      } catch (const SubjectFailure& f) {
        BOOST_TEST(contains(f.what(), c.message), f.what());
        BOOST_TEST(f.request == R"({"id":0,"op":"hello","protocol":2})");
        BOOST_TEST(contains(f.stderr_tail, c.stderr_tail), f.stderr_tail);
        if (!c.status.empty()) BOOST_TEST(f.exit_status == c.status);
      }
    }
  }
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_SUITE_END()  // test_process_subject

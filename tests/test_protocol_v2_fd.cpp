// fd:READ,WRITE subjects (src/subjects/process/fd_peer.cpp and
// process_subject.cpp): descriptors handed down by the process that started
// pecheck speak the same protocol with the same timeouts and breach handling
// as a child, start nothing, and are closed when pecheck is done; a malformed
// spec is a usage error. End to end, a Python process checks functions of
// its own through `pecheck run --subject fd:R,W` (what the Python package does).
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "pecheck/core/json.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/serve.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"
#include "support/served_in_thread.h"

BOOST_AUTO_TEST_SUITE(test_protocol_v2_fd)

using namespace pecheck;
using namespace std::chrono_literals;
using testing::ServedInThread;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

std::string usage_error(const std::string& spec) {
  try {
    make_subject(spec);
  } catch (const BadSubjectSpec& e) {
    return e.what();
  }
  return "(accepted)";
}

// The fd numbers of a spec "fd:R,W".
std::pair<int, int> fds_of(const std::string& spec) {
  const auto comma = spec.find(',');
  return {std::stoi(spec.substr(3, comma - 3)), std::stoi(spec.substr(comma + 1))};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_malformed_fd_spec_is_a_usage_error) {
  int p[2];
  BOOST_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
  const auto r = std::to_string(p[0]), w = std::to_string(p[1]);
  BOOST_TEST(contains(usage_error("fd:"), "not fd:READ,WRITE"));
  BOOST_TEST(contains(usage_error("fd:" + r), "not fd:READ,WRITE"));
  BOOST_TEST(contains(usage_error("fd:a,b"), "not fd:READ,WRITE"));
  BOOST_TEST(contains(usage_error("fd:" + r + "," + w + ",7"), "not fd:READ,WRITE"));
  BOOST_TEST(contains(usage_error("fd:-3," + w), "not fd:READ,WRITE"));
  BOOST_TEST(contains(usage_error("fd:0,1"), "descriptor 0 is pecheck's own stdin"));
  BOOST_TEST(contains(usage_error("fd:" + r + ",2"), "descriptor 2 is pecheck's own stderr"));
  BOOST_TEST(contains(usage_error("fd:987,988"), "descriptor 987 is not open in pecheck"));
  BOOST_TEST(contains(usage_error("fd:" + w + "," + r), "is not open for reading (READ comes first)"));
  BOOST_TEST(contains(usage_error("fd:" + r + "," + r), "is not open for writing (WRITE comes second)"));
  // Refused before anything was taken over: the descriptors are still the caller's.
  BOOST_TEST(is_open(p[0]));
  BOOST_TEST(is_open(p[1]));
  close(p[0]);
  close(p[1]);
}

BOOST_AUTO_TEST_CASE(pecheck_closes_the_descriptors_when_it_is_done) {
  const auto builtin = make_subject("builtin:sinusoidal");
  ServedInThread served(*builtin);
  const auto [read_fd, write_fd] = fds_of(served.spec());
  {
    const auto s = make_subject(served.spec());
    BOOST_TEST(s->info().name == "sinusoidal");
    BOOST_TEST(format_spec(s->info().spec) == served.spec());
    BOOST_TEST(ask::encode(*s, 4, {0, 1}, 2).rows() == 2);
    BOOST_TEST(s->log_tail().empty(), "pecheck sees no stderr of an fd subject");
    // Children pecheck starts later do not inherit the conversation.
    BOOST_TEST((fcntl(read_fd, F_GETFD) & FD_CLOEXEC) != 0);
    BOOST_TEST((fcntl(write_fd, F_GETFD) & FD_CLOEXEC) != 0);
  }
  BOOST_TEST(served.finished_within(2), "the answering side saw shutdown and the end of its input");
  BOOST_TEST(!is_open(read_fd));
  BOOST_TEST(!is_open(write_fd));
}

BOOST_AUTO_TEST_CASE(an_fd_peer_that_does_not_answer_fails_within_the_timeout) {
  ServedInThread served([](std::string_view, bool&) { return std::string(); });
  SubjectOptions quick;
  quick.timeout_seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  try {
    make_subject(served.spec(), quick);
    BOOST_FAIL("expected a SubjectFailure");
  } catch (const SubjectFailure& f) {
    BOOST_TEST(seconds_since(start) < 1.0);
    BOOST_TEST(std::string(f.what()) == "the subject did not answer request 0 (hello) within 0.2 s");
    BOOST_TEST(f.request == R"({"id":0,"op":"hello","protocol":2})");
    BOOST_TEST(f.exit_status == "not a child of pecheck");
    BOOST_TEST(f.stderr_tail.empty());
  }
  BOOST_TEST(served.finished_within(2), "pecheck closed its ends after the failure");
}

BOOST_AUTO_TEST_CASE(an_fd_peer_that_closes_its_output_is_seen_at_once) {
  const auto builtin = make_subject("builtin:sinusoidal");
  ServedInThread served(*builtin);
  served.close_answers();
  SubjectOptions patient;
  patient.timeout_seconds = 30;
  const auto start = std::chrono::steady_clock::now();
  try {
    make_subject(served.spec(), patient);
    BOOST_FAIL("expected a SubjectFailure");
  } catch (const SubjectFailure& f) {
    BOOST_TEST(seconds_since(start) < 2.0, "not the 30 s timeout");
    BOOST_TEST(std::string(f.what()) == "the subject closed its output before answering request 0 (hello)");
    BOOST_TEST(f.exit_status == "not a child of pecheck");
  }
}

BOOST_AUTO_TEST_CASE(a_breach_over_fds_is_a_subject_failure_and_sticks) {
  const auto builtin = make_subject("builtin:sinusoidal");
  ServedInThread served([&](std::string_view line, bool& shutdown) {
    std::string reply = answer(*builtin, line, shutdown);
    if (contains(std::string(line), "\"op\":\"encode\"")) reply.replace(reply.find("\"id\":1"), 6, "\"id\":9");
    return reply;
  });
  const auto s = make_subject(served.spec());
  try {
    ask::encode(*s, 2, {0}, 1);
    BOOST_FAIL("expected a SubjectFailure");
  } catch (const SubjectFailure& f) {
    BOOST_TEST(std::string(f.what()) == "the subject answered request 1 (encode) with id 9 instead of 1");
    BOOST_TEST(contains(f.received, "\"id\":9"));
  }
  BOOST_CHECK_THROW(ask::encode(*s, 2, {0}, 1), SubjectFailure);
}

BOOST_AUTO_TEST_CASE(one_socket_may_carry_both_directions) {
  const auto builtin = make_subject("builtin:rope");
  int sv[2];
  BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  std::thread answering([&] {
    std::string pending;
    char buf[4096];
    bool shutdown = false;
    while (!shutdown) {
      const auto nl = pending.find('\n');
      if (nl == std::string::npos) {
        const ssize_t n = read(sv[1], buf, sizeof buf);
        if (n <= 0) break;
        pending.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      const std::string reply = answer(*builtin, pending.substr(0, nl), shutdown) + "\n";
      pending.erase(0, nl + 1);
      if (write(sv[1], reply.data(), reply.size()) != static_cast<ssize_t>(reply.size())) break;
    }
  });
  {
    const auto s = make_subject("fd:" + std::to_string(sv[0]) + "," + std::to_string(sv[0]));
    const Matrix x = Matrix::Ones(2, 4);
    BOOST_TEST((ask::rotate(*s, {0, 3}, x, std::nullopt) == ask::rotate(*builtin, {0, 3}, x, std::nullopt)));
  }
  answering.join();
  close(sv[1]);
}

BOOST_AUTO_TEST_CASE(a_python_process_checks_its_own_functions_through_fds) {
  const char* bin = std::getenv("PECHECK_BIN");
  const char* source = std::getenv("PECHECK_SOURCE_DIR");
  BOOST_REQUIRE(bin != nullptr);
  BOOST_REQUIRE(source != nullptr);
  const std::string dir = testing::temp_dir("pecheck-fd-parent");
  const std::string command = std::string("/usr/bin/python3 '") + source + "/tests/subjects/fd_parent.py' '" + bin +
                              "' --properties 'pe.*' --cases 30 --no-regressions --report-dir '" + dir + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, output);
  std::ifstream file(dir + "/report.json");
  BOOST_REQUIRE(file.good());
  const json report = json::parse(file);
  BOOST_TEST(report["subjects"][0]["name"] == "in-process-sinusoidal");
  BOOST_TEST(report["subjects"][0]["spec"].get<std::string>().rfind("fd:", 0) == 0u);
  int passed = 0;
  for (const auto& r : report["results"]) passed += r["status"] == "passed";
  BOOST_TEST(passed >= 5, output);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

BOOST_AUTO_TEST_SUITE_END()  // test_protocol_v2_fd

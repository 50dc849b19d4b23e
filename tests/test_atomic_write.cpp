// Atomic report writes (src/report/report_files.cpp; the directory as one
// unit is tests/test_report_dir.cpp): a write that fails
// midway leaves the previous report whole and no temporary file behind, and
// an unwritable report directory is a clear error naming the path.
#include <boost/test/unit_test.hpp>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "pecheck/report/report_files.h"
#include "support/cli.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_atomic_write)

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool any_temporary(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  }
  return false;
}

// Lowers the largest file this process may write, so a write fails partway
// (EFBIG) as it would on a full disk; restored on destruction.
struct FileSizeLimit {
  rlimit saved{};
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);  // a failed write, not a killed process
    getrlimit(RLIMIT_FSIZE, &saved);
    rlimit low = saved;
    low.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &low);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &saved); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_write_that_fails_midway_leaves_the_old_file_whole) {
  const fs::path dir = temp_dir("pecheck-atomic");
  const fs::path report = dir / "report.json";
  write_file_atomically(report, "{\"old\": true}\n");
  const std::string big(1 << 20, 'x');
  {
    const FileSizeLimit limit(4096);
    BOOST_CHECK_THROW(write_file_atomically(report, big), ReportWriteError);
  }
  BOOST_TEST(read_file(report.string()) == "{\"old\": true}\n");
  BOOST_TEST(!any_temporary(dir));
  BOOST_TEST(names_in(dir) == std::vector<std::string>{"report.json"});
  // And once writing works again, the new text replaces the old whole.
  write_file_atomically(report, big);
  BOOST_TEST(read_file(report.string()) == big);
  BOOST_TEST(!any_temporary(dir));
}

BOOST_AUTO_TEST_CASE(a_failed_report_run_keeps_the_previous_reports) {
  const fs::path dir = temp_dir("pecheck-atomic");
  const RunReport report = sample_report();
  const auto first = write_reports(dir, report);
  BOOST_TEST(first.size() == 5u);  // one counterexample, junit.xml, summary.md, report.html, report.json
  const std::string json_before = read_file((dir / "report.json").string());
  const std::string html_before = read_file((dir / "report.html").string());
  {
    const FileSizeLimit limit(2048);  // the counterexample file fits; the reports do not
    BOOST_CHECK_THROW(write_reports(dir, report), ReportWriteError);
  }
  BOOST_TEST(read_file((dir / "report.json").string()) == json_before);
  BOOST_TEST(read_file((dir / "report.html").string()) == html_before);
  BOOST_TEST(!any_temporary(dir));
}

BOOST_AUTO_TEST_CASE(unwritable_report_directory_is_a_clear_error) {
  // Tests may run as root, whom permissions do not stop: a path under a
  // regular file cannot be a directory for anyone.
  const fs::path file = fs::path(temp_dir("pecheck-atomic")) / "plain-file";
  std::ofstream(file) << "not a directory\n";
  try {
    write_reports(file / "reports", sample_report());
    BOOST_FAIL("write_reports did not throw");
  } catch (const ReportWriteError& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find((file / "reports").string()) != std::string::npos, what);
    BOOST_TEST(what.find("cannot create report directory") != std::string::npos, what);
  }
  BOOST_CHECK_THROW(write_file_atomically("/dev/null/report.json", "x"), ReportWriteError);

  const auto cli = run_cli({"run", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded", "--report-dir",
                            (file / "reports").string()});
  BOOST_TEST(cli.exit_code == 2);
  BOOST_TEST(cli.output.find("pecheck: cannot create report directory " + (file / "reports").string()) !=
                 std::string::npos,
             cli.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_atomic_write

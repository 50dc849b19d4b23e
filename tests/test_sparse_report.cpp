// A report that is not text is refused at its first NUL byte (issue 39): a
// 1 GiB sparse file (`truncate -s 1G`, NUL from byte 0) given to `pecheck
// merge` was read whole, a gigabyte of memory and seconds, before being
// refused. Reads of text stop at the chunk holding the first invalid byte
// (core/bounded_file.h, FileContent::text).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "pecheck/core/bounded_file.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_sparse_report, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;

BOOST_AUTO_TEST_CASE(a_sparse_gigabyte_report_is_refused_at_its_first_byte_within_bounded_memory) {
  const std::string dir = testing::temp_dir("pecheck-sparse");
  std::filesystem::create_directories(dir + "/shard");
  const std::string report = dir + "/shard/report.json";
  std::ofstream(report).close();
  std::filesystem::resize_file(report, std::uintmax_t{1} << 30);  // sparse: no disk, NUL from byte 0
  const auto r = testing::run_cli({"merge", dir + "/shard", "--report-dir", dir + "/merged"});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(r.output.find("holds a NUL byte at byte 0") != std::string::npos, r.output);
  BOOST_TEST(r.seconds < 5 * testing::time_scale());
  BOOST_TEST(r.max_rss_kib < 100 * 1024 * testing::memory_scale(), r.max_rss_kib);
}

BOOST_AUTO_TEST_CASE(a_nul_later_in_a_text_is_named_at_its_byte_and_binary_reads_are_unchanged) {
  const std::string path = testing::temp_dir("pecheck-nul") + "/report.json";
  std::ofstream(path, std::ios::binary) << std::string("{\"a\": 1}") << '\0' << "rest";
  try {
    read_bounded_file(path, kMaxReportBytes, "report", FileContent::text);
    BOOST_FAIL("a NUL byte was read as text");
  } catch (const FileReadError& e) {
    BOOST_TEST(std::string(e.what()).find("NUL byte at byte 8") != std::string::npos, e.what());
  }
  BOOST_TEST(read_bounded_file(path, kMaxReportBytes, "file").size() == 13u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_sparse_report

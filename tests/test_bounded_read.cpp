// Files pecheck reads back are untrusted (core/bounded_file.h,
// core/strict_json.h): a symlink to /dev/zero, a FIFO with no writer, a
// directory, a file over its limit or one whose size fstat does not tell
// are refused with a sentence naming the file, at once and in bounded
// memory; JSON that a lenient reader would cut at a NUL, read past a
// byte-order mark, or take the last of two equal keys from is refused too.
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "pecheck/core/bounded_file.h"
#include "pecheck/core/strict_json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_bounded_read)

using namespace pecheck;

namespace {

namespace fs = std::filesystem;

std::string refusal(const fs::path& path, std::uintmax_t limit = 1 << 20) {
  try {
    read_bounded_file(path, limit, "report");
  } catch (const FileReadError& e) {
    return e.what();
  }
  return "(read)";
}

std::string strict_refusal(std::string_view text) {
  try {
    parse_strict_json(text);
  } catch (const StrictJsonError& e) {
    return e.what();
  }
  return "(parsed)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_regular_file_is_read_whole_within_its_limit) {
  const std::string dir = testing::temp_dir("bounded-read");
  std::ofstream(dir + "/a.json") << R"({"a": 1})";
  BOOST_TEST(read_bounded_file(dir + "/a.json", 8, "report") == R"({"a": 1})");
  std::ofstream(dir + "/empty.json");
  BOOST_TEST(read_bounded_file(dir + "/empty.json", 8, "report").empty());
  // A symlink to a regular file is that file.
  fs::create_symlink(dir + "/a.json", dir + "/link.json");
  BOOST_TEST(read_bounded_file(dir + "/link.json", 8, "report") == R"({"a": 1})");
}

BOOST_AUTO_TEST_CASE(what_is_not_a_regular_file_is_refused_at_once) {
  const std::string dir = testing::temp_dir("bounded-read");
  fs::create_symlink("/dev/zero", dir + "/zero.json");
  BOOST_TEST(contains(refusal(dir + "/zero.json"), "is a character device, not a regular file"),
             refusal(dir + "/zero.json"));
  BOOST_TEST(contains(refusal(dir + "/zero.json"), dir + "/zero.json"));
  BOOST_REQUIRE(mkfifo((dir + "/fifo.json").c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  BOOST_TEST(contains(refusal(dir + "/fifo.json"), "is a FIFO (named pipe), not a regular file"));
  const bool quick = std::chrono::steady_clock::now() - start < std::chrono::seconds(5);
  BOOST_TEST(quick, "a FIFO with no writer must not hang");
  BOOST_TEST(contains(refusal(dir), "is a directory"));
  BOOST_TEST(contains(refusal(dir + "/absent.json"), "cannot read the report"));
  BOOST_TEST(contains(refusal(dir + "/absent.json"), "No such file"));
}

BOOST_AUTO_TEST_CASE(a_file_over_its_limit_is_refused_before_it_is_read) {
  const std::string dir = testing::temp_dir("bounded-read");
  // Sparse: 2 GiB on the file system's say-so, nothing written.
  {
    std::ofstream(dir + "/huge.json");
    fs::resize_file(dir + "/huge.json", std::uintmax_t{2} << 30);
  }
  const std::string message = refusal(dir + "/huge.json", kMaxReportBytes);
  BOOST_TEST(contains(message, "is 2 GiB, more than the 1 GiB pecheck reads in a report"), message);
  std::ofstream(dir + "/nine.json") << "123456789";
  BOOST_TEST(contains(refusal(dir + "/nine.json", 8), "is 9 bytes, more than the 8 bytes"));
  // A file whose size fstat does not tell (procfs says 0): the bound holds while reading.
  BOOST_TEST(contains(refusal("/proc/self/maps", 16), "more than the 16 bytes"), refusal("/proc/self/maps", 16));
  BOOST_TEST(refusal("/proc/self/maps") == "(read)");
}

BOOST_AUTO_TEST_CASE(strict_json_is_one_value_and_nothing_else) {
  BOOST_TEST(parse_strict_json(R"({"a": [1, 2]} )")["a"][1] == 2);
  const std::string with_nul = std::string(R"({"status": "failed"})") + std::string("\0garbage", 8);
  BOOST_TEST(contains(strict_refusal(with_nul), "a NUL byte at byte 20"));
  BOOST_TEST(contains(strict_refusal("\xEF\xBB\xBF{}"), "byte-order mark"));
  BOOST_TEST(contains(strict_refusal(R"({"status": "failed", "status": "passed"})"), "the key \"status\" twice"));
  BOOST_TEST(strict_refusal(R"({"a": {"x": 1}, "b": {"x": 1}})") == "(parsed)", "one key in two objects is fine");
  BOOST_TEST(contains(strict_refusal(R"({"a": 1} {"b": 2})"), "not JSON"));
  BOOST_TEST(contains(strict_refusal(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')),
                      "nested more than"));
  BOOST_TEST(strict_refusal(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')) == "(parsed)");
  BOOST_TEST(contains(strict_refusal("[1e400]"), "out of the range of a double"));
}

// Issue 39's hostile pass: a hello whose params.forward.layers held 10⁶ empty
// objects (3 MB) kept pecheck busy for minutes — nlohmann's callback parser
// rescans an array at the end of each object in it. The checked parser that
// reads answers, reports and configs is linear: 10⁶ objects in well under a
// second of work (allowing for a loaded machine), keys and depth still checked.
BOOST_AUTO_TEST_CASE(json_is_read_in_time_linear_in_its_objects) {
  std::string many = "[";
  for (int i = 0; i < 1000000; ++i) many += i == 0 ? "{\"k\": 1}" : ", {\"k\": 1}";
  many += "]";
  const auto start = std::chrono::steady_clock::now();
  BOOST_TEST(parse_strict_json(many).size() == 1000000U);
  const json answered = parse_json_checked(many, 0, [](const JsonShapeFault&) { throw std::logic_error("fault"); });
  BOOST_TEST(answered.size() == 1000000U);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST(seconds < 20.0, "10^6 objects read twice in " << seconds << " s");
  std::vector<JsonShapeFault> faults;
  auto record = [&faults](const JsonShapeFault& f) {
    faults.push_back(f);
    throw std::runtime_error("fault");
  };
  BOOST_CHECK_THROW(parse_json_checked(R"([{"a": 1}, {"b": 2, "b": 3}])", 0, record), std::runtime_error);
  BOOST_TEST((faults.size() == 1U && !faults[0].too_deep && faults[0].key == "b"));
  BOOST_CHECK_THROW(parse_json_checked("[[[1]]]", 2, record), std::runtime_error);
  BOOST_TEST((faults.size() == 2U && faults[1].too_deep));
  BOOST_TEST(parse_json_checked(std::string(100000, '[') + std::string(100000, ']'), 0, record).is_array(),
             "no depth limit where none is asked");
}

BOOST_AUTO_TEST_SUITE_END()  // test_bounded_read

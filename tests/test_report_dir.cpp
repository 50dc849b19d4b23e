// The report directory is replaced as one unit (issue 12; the sequence is
// documented in pecheck/report/report_files.h): a full disk, a failure at any
// file, a kill -9 at any moment, or a second run writing the same directory
// leaves either the previous set or the new one, whole — never a report.json
// next to another run's counterexamples. "Whole" is checked by the run id
// that the marker, report.json and every counterexample file carry, and by
// the counterexample files being exactly those report.json names.
#include <boost/test/unit_test.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "pecheck/report/json_writer.h"
#include "pecheck/report/report_files.h"
#include "support/cli.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_report_dir)

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A run whose set is recognisable: its own id, `witnesses` counterexample
// files (their names differ with the count, so a mix shows in the listing).
RunReport run_report(const std::string& run_id, int witnesses, std::uint64_t seed = 7) {
  RunReport r = sample_report();
  r.run_id = run_id;
  r.seed = seed;
  const PropertyResult witness = r.results[1];
  r.results.clear();
  for (int i = 0; i < witnesses; ++i) {
    PropertyResult w = witness;
    w.subject = fmt::format("builtin:subject-{}-of-{}", i, witnesses);
    r.results.push_back(w);
  }
  return r;
}

// Reads a file relative to an open directory; nullopt when it is gone.
std::optional<std::string> read_at(int dir_fd, const std::string& relative) {
  const int fd = ::openat(dir_fd, relative.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[65536];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (n < 0) return std::nullopt;
  return text;
}

struct Snapshot {
  bool vanished = false;  // the set was swapped out and removed while being read
  std::string run_id;     // the set's run id, when it is whole
  std::string mix;        // what does not belong together, when it is not
};

// Reads one set through one directory handle, the way report_files.h tells
// readers to, and says whether it is one run's.
Snapshot snapshot(const fs::path& dir) {
  Snapshot s;
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return s.vanished = true, s;
  auto done = [&] { ::close(dir_fd); return s; };
  const auto marker = read_at(dir_fd, ".pecheck-report");
  const auto report = read_at(dir_fd, "report.json");
  if (!marker || !report) return s.vanished = true, done();
  const std::string id = json::parse(*marker)["run_id"];
  const json j = json::parse(*report);
  if (j.value("run_id", "") != id) return s.mix = "report.json of run " + j.value("run_id", "?") + " in " + id, done();
  std::set<std::string> expected, present;
  for (const auto& r : j["results"]) {
    if (!r.contains("counterexample")) continue;
    PropertyResult named;
    named.property = r["property"];
    named.subject = r["subject"];
    expected.insert(counterexample_file_name(named));
  }
  const int cx_fd = ::openat(dir_fd, "counterexamples", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cx_fd < 0) return s.vanished = true, done();
  DIR* listing = ::fdopendir(cx_fd);
  while (const dirent* e = ::readdir(listing)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    present.insert(name);
    const auto text = read_at(cx_fd, name);
    if (!text) {
      ::closedir(listing);
      return s.vanished = true, done();
    }
    const json cx = json::parse(*text);
    if (cx.value("run_id", "") != id || cx["run_seed"] != j["seed"]) {
      s.mix = "counterexamples/" + name + " of run " + cx.value("run_id", "?") + " in " + id;
    }
  }
  // A set swapped out while being read is deleted under the reader: files
  // missing from it are a set vanishing, not a mix. Swapped out means the
  // path names another directory now.
  struct stat held {}, now {};
  const bool swapped_out = ::fstat(dir_fd, &held) != 0 || ::stat(dir.c_str(), &now) != 0 || held.st_ino != now.st_ino;
  ::closedir(listing);
  if (s.mix.empty() && present != expected && swapped_out) return s.vanished = true, done();
  if (s.mix.empty() && present != expected) {
    s.mix = std::to_string(present.size()) + " counterexample files where report.json names " +
            std::to_string(expected.size());
  }
  if (s.mix.empty()) s.run_id = id;
  return done();
}

// Names beside the report directory other than it and its lock: leftovers.
std::vector<std::string> leftovers_beside(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name != dir.filename().string() && name != fmt::format(".{}.lock", dir.filename().string())) out.push_back(name);
  }
  return out;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

// The report directory of a test: DIR inside a fresh parent of its own.
fs::path fresh_report_dir() { return fs::path(temp_dir("pecheck-report-dir")) / "reports"; }

// A writer that sleeps before each file, so a signal lands mid-write.
std::function<void(const fs::path&, const std::string&)> slow_writer(std::chrono::microseconds pause) {
  return [pause](const fs::path& path, const std::string& text) {
    std::this_thread::sleep_for(pause);
    std::ofstream(path, std::ios::binary) << text;
  };
}

// Runs `work` in a forked child; returns its pid.
template <class Work>
pid_t in_child(Work work) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      work();
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  return pid;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_new_set_replaces_the_previous_one_whole) {
  const fs::path dir = fresh_report_dir();
  const auto first = write_reports(dir, run_report("run-a", 5));
  BOOST_TEST(first.size() == 5u + 4u);
  BOOST_TEST(snapshot(dir).run_id == "run-a");
  // Fewer counterexamples with other names: none of the first run's may stay.
  write_reports(dir, run_report("run-b", 2));
  const Snapshot b = snapshot(dir);
  BOOST_TEST(b.run_id == "run-b", b.mix);
  BOOST_TEST(names_in(dir / "counterexamples").size() == 2u);
  BOOST_TEST(leftovers_beside(dir).empty());
  // A report without a run id gets a fresh one, in every file.
  RunReport anonymous = run_report("", 3);
  write_reports(dir, anonymous);
  const Snapshot fresh = snapshot(dir);
  BOOST_TEST(fresh.run_id.size() == 32u, fresh.mix);
  BOOST_TEST(new_run_id() != new_run_id());
}

BOOST_AUTO_TEST_CASE(paths_people_write_name_the_same_directory) {
  const fs::path parent = temp_dir("pecheck-report-dir");
  const std::string here = fs::current_path().string();
  fs::current_path(parent);
  write_reports("reports/", run_report("slash", 1));
  write_reports("./reports", run_report("dot", 1));
  fs::current_path(here);
  BOOST_TEST(snapshot(parent / "reports").run_id == "dot");
  BOOST_TEST(leftovers_beside(parent / "reports").empty());
  // A link to a report directory: the target is replaced, the link stays.
  fs::create_directory_symlink(parent / "reports", parent / "link");
  write_reports(parent / "link", run_report("through-link", 2));
  BOOST_TEST(fs::is_symlink(parent / "link"));
  BOOST_TEST(snapshot(parent / "reports").run_id == "through-link");
  BOOST_CHECK_THROW(write_reports("/", run_report("root", 1)), ReportWriteError);
}

BOOST_AUTO_TEST_CASE(a_directory_pecheck_did_not_write_is_left_alone) {
  const fs::path dir = fresh_report_dir();
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "mine\n";
  try {
    write_reports(dir, run_report("run", 1));
    BOOST_FAIL("a foreign directory was replaced");
  } catch (const ForeignReportDir& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find(dir.string() + " is not empty and is not a pecheck report directory (it holds notes.txt)") !=
                   std::string::npos,
               what);
  }
  BOOST_TEST(read_file((dir / "notes.txt").string()) == "mine\n");
  BOOST_TEST(leftovers_beside(dir).empty());
  // Through the CLI: exit 2, the directory untouched.
  const auto cli = run_cli({"run", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded", "--report-dir",
                            dir.string()});
  BOOST_TEST(cli.exit_code == 2, cli.output);
  BOOST_TEST(cli.output.find("is not a pecheck report directory") != std::string::npos, cli.output);
  BOOST_TEST(names_in(dir) == std::set<std::string>{"notes.txt"});
  // Only when the caller says so.
  ReportDirOptions replace;
  replace.replace_foreign = true;
  write_reports(dir, run_report("run", 1), replace);
  BOOST_TEST(snapshot(dir).run_id == "run");
  BOOST_TEST(!fs::exists(dir / "notes.txt"));

  // A file where the directory should be is an error, never replaced.
  const fs::path file = fresh_report_dir();
  std::ofstream(file) << "a file\n";
  BOOST_CHECK_THROW(write_reports(file, run_report("run", 1), replace), ReportWriteError);
  BOOST_TEST(read_file(file.string()) == "a file\n");
}

BOOST_AUTO_TEST_CASE(an_earlier_pecheck_report_directory_is_recognised) {
  // Before the marker, a report directory held just these names.
  const fs::path dir = fresh_report_dir();
  fs::create_directories(dir / "counterexamples");
  for (const char* name : {"report.json", "junit.xml", "summary.md", "report.html", "report.json.tmp.123",
                           "counterexamples/pe.bounded--builtin_integer.json"}) {
    std::ofstream(dir / name) << "{}\n";
  }
  BOOST_TEST(is_report_dir(dir));
  write_reports(dir, run_report("now", 1));
  BOOST_TEST(snapshot(dir).run_id == "now");
  // Something else inside counterexamples/ is not pecheck's.
  const fs::path other = fresh_report_dir();
  fs::create_directories(other / "counterexamples");
  std::ofstream(other / "report.json") << "{}\n";
  std::ofstream(other / "counterexamples" / "analysis.ipynb") << "{}\n";
  BOOST_TEST(!is_report_dir(other));
  BOOST_TEST(is_report_dir(fresh_report_dir()));  // missing
}

BOOST_AUTO_TEST_CASE(a_failure_at_any_file_leaves_the_previous_set) {
  const fs::path dir = fresh_report_dir();
  write_reports(dir, run_report("old", 3));
  const auto before = names_in(dir);
  const std::string json_before = read_file((dir / "report.json").string());
  // The new set has 1 marker + 6 counterexamples + 4 reports: fail at each.
  for (int fail_at = 0; fail_at < 11; ++fail_at) {
    int calls = 0;
    ReportDirOptions options;
    options.write_file = [&](const fs::path& path, const std::string& text) {
      if (calls++ == fail_at) throw ReportWriteError("cannot write " + path.string() + ": No space left on device");
      std::ofstream(path, std::ios::binary) << text;
    };
    try {
      write_reports(dir, run_report("new", 6), options);
      BOOST_FAIL("no failure at file " << fail_at);
    } catch (const ReportWriteError& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("No space left on device") != std::string::npos, what);
      BOOST_TEST(what.find("the previous reports there are as they were") != std::string::npos, what);
    }
    BOOST_TEST(snapshot(dir).run_id == "old", "failing at file " << fail_at);
    BOOST_TEST(names_in(dir) == before);
    BOOST_TEST(read_file((dir / "report.json").string()) == json_before);
    BOOST_TEST(leftovers_beside(dir).empty(), "failing at file " << fail_at);
  }
}

BOOST_AUTO_TEST_CASE(a_full_disk_leaves_the_previous_set) {
  // A real ENOSPC from a tiny tmpfs, where this test may mount one (root).
  const fs::path mount_point = temp_dir("pecheck-tmpfs");
  if (::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=512k") != 0) {
    BOOST_TEST_MESSAGE("cannot mount a tmpfs here (" << std::strerror(errno)
                                                     << "); the injected failures above cover this case");
    return;
  }
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  const fs::path dir = mount_point / "reports";
  write_reports(dir, run_report("old", 2));
  const std::string json_before = read_file((dir / "report.json").string());
  {  // Fill the disk.
    std::ofstream filler(mount_point / "filler", std::ios::binary);
    const std::string block(4096, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  try {
    write_reports(dir, run_report("new", 4));
    BOOST_FAIL("a full disk did not fail the write");
  } catch (const ReportWriteError& e) {
    BOOST_TEST(std::string(e.what()).find("No space left on device") != std::string::npos, e.what());
  }
  BOOST_TEST(snapshot(dir).run_id == "old");
  BOOST_TEST(read_file((dir / "report.json").string()) == json_before);
  const auto left = leftovers_beside(dir);
  BOOST_TEST((left == std::vector<std::string>{"filler"}));
  fs::remove(mount_point / "filler");
  write_reports(dir, run_report("new", 4));
  BOOST_TEST(snapshot(dir).run_id == "new");
}

BOOST_AUTO_TEST_CASE(a_mount_point_is_refused_clearly) {
  // A CI job may mount a volume where the reports go: a rename cannot replace it.
  const fs::path dir = fresh_report_dir();
  fs::create_directories(dir);
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=512k") != 0) {
    BOOST_TEST_MESSAGE("cannot mount a tmpfs here (" << std::strerror(errno) << "); not checked");
    return;
  }
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{dir};
  try {
    write_reports(dir, run_report("run", 1));
    BOOST_FAIL("a mount point was written");
  } catch (const ReportWriteError& e) {
    BOOST_TEST(std::string(e.what()).find("it is a mount point") != std::string::npos, e.what());
  }
  BOOST_TEST(fs::is_empty(dir));
  write_reports(dir / "reports", run_report("run", 1));  // what the message advises
  BOOST_TEST(snapshot(dir / "reports").run_id == "run");
}

BOOST_AUTO_TEST_CASE(a_kill_9_at_any_moment_leaves_one_whole_set) {
  const fs::path dir = fresh_report_dir();
  const RunReport old_set = run_report("old", 3), new_set = run_report("new", 9);
  const int files = 1 + 9 + 4;  // the marker, the counterexamples, the reports
  write_reports(dir, old_set);
  auto check_whole = [&](const std::string& when) {
    const Snapshot s = snapshot(dir);
    BOOST_TEST(s.mix.empty(), when << ": " << s.mix);
    BOOST_TEST(!s.vanished, when);
    return s.run_id;
  };

  // Killed after each file: the new set was never swapped in.
  for (int written = 0; written < files; ++written) {
    int progress[2];
    BOOST_REQUIRE(::pipe(progress) == 0);
    ReportDirOptions reporting;
    reporting.write_file = [&](const fs::path& path, const std::string& text) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the kill lands here
      std::ofstream(path, std::ios::binary) << text;
      const char done = 'x';
      (void)!::write(progress[1], &done, 1);
    };
    const pid_t child = in_child([&] { write_reports(dir, new_set, reporting); });
    for (int seen = 0; seen < written; ++seen) {
      char byte = 0;
      BOOST_REQUIRE(::read(progress[0], &byte, 1) == 1);
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(progress[0]);
    ::close(progress[1]);
    BOOST_TEST(check_whole(fmt::format("killed after {} files", written)) == "old");
    // The next writer removes what the killed one left.
    write_reports(dir, old_set);
    BOOST_TEST(leftovers_beside(dir).empty());
  }

  // Killed at times spread over the whole write, the swap included: one set, whole.
  ReportDirOptions slow;
  slow.write_file = slow_writer(std::chrono::milliseconds(2));
  const auto t0 = Clock::now();
  write_reports(fresh_report_dir(), new_set, slow);
  const double write_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  int old_sets = 0, new_sets = 0;
  const int kills = 20;
  for (int k = 0; k < kills; ++k) {
    const double at = write_seconds * 1.5 * k / (kills - 1);
    const pid_t child = in_child([&] { write_reports(dir, new_set, slow); });
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    const std::string id = check_whole(fmt::format("killed after {:.3f} s", at));
    BOOST_TEST((id == "old" || id == "new"), id);
    old_sets += id == "old";
    new_sets += id == "new";
    write_reports(dir, old_set);
    BOOST_TEST(leftovers_beside(dir).empty());
  }
  BOOST_TEST_MESSAGE(kills << " kills at spread times: " << old_sets << " left the old set, " << new_sets
                           << " the new one");
}

BOOST_AUTO_TEST_CASE(two_concurrent_writers_never_mix) {
  const fs::path dir = fresh_report_dir();
  ReportDirOptions slow;
  slow.write_file = slow_writer(std::chrono::microseconds(300));
  const int rounds = 12;
  const pid_t a = in_child([&] {
    for (int i = 0; i < rounds; ++i) write_reports(dir, run_report(fmt::format("a{}", i), 3, 1), slow);
  });
  const pid_t b = in_child([&] {
    for (int i = 0; i < rounds; ++i) write_reports(dir, run_report(fmt::format("b{}", i), 8, 2), slow);
  });
  // Read while they write, as a CI step publishing the directory would.
  int whole = 0, vanished = 0, mixed = 0;
  int status_a = -1, status_b = -1;
  while (status_a < 0 || status_b < 0) {
    if (status_a < 0 && ::waitpid(a, &status_a, WNOHANG) == 0) status_a = -1;
    if (status_b < 0 && ::waitpid(b, &status_b, WNOHANG) == 0) status_b = -1;
    if (!fs::exists(dir)) continue;
    const Snapshot s = snapshot(dir);
    if (!s.mix.empty()) {
      ++mixed;
      BOOST_TEST(s.mix.empty(), s.mix);
    } else if (s.vanished) {
      ++vanished;
    } else {
      ++whole;
    }
  }
  BOOST_TEST((WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0));
  BOOST_TEST((WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0));
  BOOST_TEST(mixed == 0);
  BOOST_TEST(whole > 0);
  const Snapshot last = snapshot(dir);
  BOOST_TEST((last.run_id == fmt::format("a{}", rounds - 1) || last.run_id == fmt::format("b{}", rounds - 1)),
             last.run_id << last.mix);
  BOOST_TEST(leftovers_beside(dir).empty());
  BOOST_TEST_MESSAGE("snapshots while writing: " << whole << " whole, " << vanished << " swapped out while read, "
                                                 << mixed << " mixed");
}

BOOST_AUTO_TEST_CASE(a_busy_directory_is_waited_for_then_refused) {
  const fs::path dir = fresh_report_dir();
  write_reports(dir, run_report("first", 1));
  // Another run holds the lock (a separate open file description conflicts
  // with the writer's even within this process).
  const int held = ::open(report_dir_lock(dir).c_str(), O_RDWR | O_CLOEXEC);
  BOOST_REQUIRE(held >= 0);
  BOOST_REQUIRE(::flock(held, LOCK_EX) == 0);
  ReportDirOptions short_wait;
  short_wait.lock_wait_seconds = 0.3;
  const auto t0 = Clock::now();
  try {
    write_reports(dir, run_report("second", 1), short_wait);
    BOOST_FAIL("wrote while the lock was held");
  } catch (const ReportDirBusy& e) {
    BOOST_TEST(std::string(e.what()).find("is being written by another pecheck run") != std::string::npos, e.what());
  }
  BOOST_TEST(std::chrono::duration<double>(Clock::now() - t0).count() >= 0.3);
  BOOST_TEST(snapshot(dir).run_id == "first");

  // Through the CLI: exit 2 after PECHECK_REPORT_LOCK_WAIT seconds.
  ::setenv("PECHECK_REPORT_LOCK_WAIT", "0.3", 1);
  const auto cli = run_cli({"run", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded", "--report-dir",
                            dir.string()});
  ::unsetenv("PECHECK_REPORT_LOCK_WAIT");
  BOOST_TEST(cli.exit_code == 2, cli.output);
  BOOST_TEST(cli.output.find("is being written by another pecheck run") != std::string::npos, cli.output);
  BOOST_TEST(snapshot(dir).run_id == "first");

  // Released within the wait: the writer goes on.
  auto release = std::async(std::launch::async, [held] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::close(held);
  });
  ReportDirOptions long_wait;
  long_wait.lock_wait_seconds = 30;
  write_reports(dir, run_report("second", 1), long_wait);
  release.get();
  BOOST_TEST(snapshot(dir).run_id == "second");
}

BOOST_AUTO_TEST_CASE(two_cli_runs_on_one_directory_leave_one_runs_set) {
  // The scenario: overlapping `pecheck run`s with different seeds
  // into one directory used to mix 3 pairs in 10. Ten pairs, each run the
  // encoders' matrix (four subjects, 36 cells, 20 counterexamples, 0.1 s):
  // short runs finish together, which is when their writes overlap; four
  // pairs of the whole matrix took 33 s of CI.
  const fs::path dir = fresh_report_dir();
  for (int round = 0; round < 10; ++round) {
    auto run = [&](int seed) {
      return run_cli({"run", "-q", "--cases", "20", "--seed", std::to_string(seed), "--properties", "pe.*",
                      "--subject", "builtin:sinusoidal", "--subject", "builtin:integer", "--subject", "builtin:learned",
                      "--subject", "builtin:normalized", "--report-dir", dir.string()});
    };
    auto first = std::async(std::launch::async, run, 100 + 2 * round);
    auto second = std::async(std::launch::async, run, 101 + 2 * round);
    const auto r1 = first.get(), r2 = second.get();
    BOOST_TEST(r1.exit_code == 0, r1.output.substr(0, 2000));
    BOOST_TEST(r2.exit_code == 0, r2.output.substr(0, 2000));
    const Snapshot s = snapshot(dir);
    BOOST_TEST(s.mix.empty(), s.mix);
    BOOST_TEST(!s.vanished);
    const json report = json::parse(read_file((dir / "report.json").string()));
    BOOST_TEST((report["seed"] == 100 + 2 * round || report["seed"] == 101 + 2 * round));
    BOOST_TEST(!names_in(dir / "counterexamples").empty());  // the claims matrix has expected violations
  }
  BOOST_TEST(leftovers_beside(dir).empty());
}

BOOST_AUTO_TEST_SUITE_END()  // test_report_dir

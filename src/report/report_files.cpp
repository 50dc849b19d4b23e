#include "pecheck/report/report_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>

#include "pecheck/report/html_writer.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"
#include "report/report_dir.h"

namespace pecheck {

namespace fs = std::filesystem;

namespace {

// The names an earlier pecheck (before the marker) wrote in a report directory.
const std::set<std::string> kReportFiles = {"report.json", "junit.xml", "summary.md", "report.html"};

// A temporary file of the old per-file atomic write: NAME.tmp.PID.
bool is_leftover_of(const std::string& name, const std::string& file) {
  return name.rfind(file + ".tmp.", 0) == 0;
}

bool only_counterexample_files(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool json = entry.is_regular_file(ec) && (entry.path().extension() == ".json" || name.find(".json.tmp.") != std::string::npos);
    if (!json) return false;
  }
  return !ec;
}

// Writes and fsyncs one file; returns 0 or the errno of the first failure.
int write_and_sync_errno(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  size_t done = 0;
  int err = 0;
  while (done < text.size() && err == 0) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    else done += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports a full disk only here
  return err;
}

// The default writer of a report set: the staging directory is private to
// this writer, so no temporary name is needed.
void write_and_sync(const fs::path& path, const std::string& text) {
  if (const int err = write_and_sync_errno(path, text); err != 0) {
    throw ReportWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
  }
}

double lock_wait(const ReportDirOptions& options) {
  if (options.lock_wait_seconds) return *options.lock_wait_seconds;
  if (const char* text = std::getenv("PECHECK_REPORT_LOCK_WAIT"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (*end == '\0' && std::isfinite(seconds) && seconds >= 0) return seconds;
  }
  return kReportLockWaitSeconds;
}

std::string first_names(const fs::path& dir) {
  std::string out;
  int shown = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (shown++ == 3) return out + ", …";
    out += (out.empty() ? "" : ", ") + entry.path().filename().string();
  }
  return out;
}

}  // namespace

void write_file_atomically(const fs::path& path, const std::string& text) {
  // Unique per call: two writers of the same path never share a temporary file.
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = path.string() + fmt::format(".tmp.{}.{}", ::getpid(), counter++);
  int err = write_and_sync_errno(tmp, text);
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw ReportWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
  }
}

fs::path report_dir_lock(const fs::path& dir) {
  const fs::path target = report_dir::target_of(dir);
  return target.parent_path() / fmt::format(".{}.lock", target.filename().string());
}

bool is_report_dir(const fs::path& dir) {
  std::error_code ec;
  const auto status = fs::symlink_status(dir, ec);
  if (!fs::exists(status)) return true;
  if (!fs::is_directory(status)) return false;
  if (fs::is_regular_file(dir / std::string(kReportDirMarker), ec)) return true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "counterexamples" && entry.is_directory(ec) && only_counterexample_files(entry.path())) continue;
    bool ours = false;
    for (const auto& file : kReportFiles) ours = ours || name == file || is_leftover_of(name, file);
    if (!ours || !entry.is_regular_file(ec)) return false;
  }
  return !ec;
}

std::string new_run_id() {
  std::random_device device;
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", device());
  return id;
}

std::vector<fs::path> write_reports(const fs::path& dir, const RunReport& given, const ReportDirOptions& options) {
  const fs::path target = report_dir::target_of(dir);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw ReportWriteError(fmt::format("cannot create report directory {}: {}", dir.string(), ec.message()));

  // Every file of the set carries the run id, so a reader can tell one run's set.
  RunReport with_id;
  const RunReport* report = &given;
  if (given.run_id.empty()) {
    with_id = given;
    with_id.run_id = new_run_id();
    report = &with_id;
  }

  const report_dir::Lock lock(target, lock_wait(options));
  report_dir::remove_leftovers(target);
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
    throw ReportWriteError(fmt::format("cannot write reports to {}: it is not a directory", dir.string()));
  }
  if (report_dir::is_mount_point(target)) {
    throw ReportWriteError(fmt::format(
        "cannot write reports to {}: it is a mount point, and pecheck replaces its report directory whole (a "
        "rename, which a mount point refuses); use a directory inside it, e.g. {}/reports",
        dir.string(), dir.string()));
  }
  if (!options.replace_foreign && !is_report_dir(target)) {
    throw ForeignReportDir(fmt::format(
        "{} is not empty and is not a pecheck report directory (it holds {}); pecheck replaces its report "
        "directory whole, so it leaves this one alone: choose a new or empty --report-dir, or remove {} first",
        dir.string(), first_names(target), dir.string()));
  }

  const fs::path staging = report_dir::make_staging(target);
  const auto& write_file = options.write_file ? options.write_file : write_and_sync;
  std::vector<fs::path> written;
  try {
    fs::create_directory(staging / "counterexamples");
    write_file(staging / std::string(kReportDirMarker),
               json{{"format", "pecheck-report-dir"}, {"run_id", report->run_id}}.dump() + "\n");
    auto put = [&](const fs::path& relative, const std::string& text) {
      write_file(staging / relative, text);
      written.push_back(target / relative);
    };
    for (const auto& r : report->results) {
      if (r.counterexample()) {
        put(fs::path("counterexamples") / counterexample_file_name(r),
            counterexample_json(*report, r).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
      }
    }
    put("junit.xml", write_junit(*report));
    put("summary.md", write_markdown(*report));
    put("report.html", write_html(*report));
    put("report.json", write_json(*report));
    report_dir::sync_directory(staging / "counterexamples");
    report_dir::sync_directory(staging);
  } catch (const std::exception& e) {
    fs::remove_all(staging, ec);
    throw ReportWriteError(fmt::format("cannot write the reports for {} ({}); the previous reports there are as they "
                                       "were",
                                       dir.string(), e.what()));
  }

  fs::path previous;
  try {
    previous = report_dir::swap_in(staging, target);
  } catch (const ReportWriteError&) {
    fs::remove_all(staging, ec);
    throw;
  }
  try {
    report_dir::sync_directory(target.parent_path());
  } catch (const ReportWriteError&) {
    // The new set is in place; only its durability across a power loss is in doubt.
  }
  if (!previous.empty()) fs::remove_all(previous, ec);  // what is left, the next writer removes
  return written;
}

}  // namespace pecheck

#include "pecheck/report/report_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pecheck/report/html_writer.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"

namespace pecheck {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".tmp.{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw ReportWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw ReportWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw ReportWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
  }
}

std::vector<fs::path> write_reports(const fs::path& dir, const RunReport& report) {
  std::error_code ec;
  fs::create_directories(dir / "counterexamples", ec);
  if (ec) throw ReportWriteError(fmt::format("cannot create report directory {}: {}", dir.string(), ec.message()));
  // Counterexamples of an earlier run in the same directory would be mistaken for this run's.
  for (const auto& entry : fs::directory_iterator(dir / "counterexamples", ec)) {
    if (entry.path().extension() == ".json") fs::remove(entry.path(), ec);
  }
  std::vector<fs::path> written;
  auto put = [&](const fs::path& p, const std::string& text) {
    write_file_atomically(p, text);
    written.push_back(p);
  };
  for (const auto& r : report.results) {
    if (r.counterexample()) {
      put(dir / "counterexamples" / counterexample_file_name(r),
          counterexample_json(report, r).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    }
  }
  put(dir / "junit.xml", write_junit(report));
  put(dir / "summary.md", write_markdown(report));
  put(dir / "report.html", write_html(report));
  put(dir / "report.json", write_json(report));
  return written;
}

}  // namespace pecheck

#include "report/report_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc 2.28)
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "pecheck/report/report_files.h"

namespace pecheck::report_dir {

namespace fs = std::filesystem;

namespace {

std::string sibling_prefix(const fs::path& target, std::string_view role) {
  return fmt::format(".{}.{}.", target.filename().string(), role);
}

[[noreturn]] void fail(const std::string& what, int err) {
  throw ReportWriteError(fmt::format("{}: {}", what, std::strerror(err)));
}

}  // namespace

fs::path target_of(const fs::path& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) throw ReportWriteError(fmt::format("cannot use {} as a report directory: {}", dir.string(), ec.message()));
  p = p.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "reports/" names "reports"
  if (p == p.root_path() || p.filename() == "..") {
    throw ReportWriteError(fmt::format("cannot use {} as a report directory: it is replaced whole, so it must be a "
                                       "directory of its own below another",
                                       dir.string()));
  }
  if (fs::is_symlink(p, ec)) {
    const fs::path resolved = fs::canonical(p, ec);
    if (ec) throw ReportWriteError(fmt::format("cannot follow the report directory link {}: {}", p.string(), ec.message()));
    return target_of(resolved);
  }
  return p;
}

Lock::Lock(const fs::path& target, double wait_seconds) {
  const fs::path path = report_dir_lock(target);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(fmt::format("cannot open the report directory lock {}", path.string()), errno);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EWOULDBLOCK) {
      ::close(fd_);
      fail(fmt::format("cannot lock {}", path.string()), err);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd_);
      throw ReportDirBusy(fmt::format(
          "{} is being written by another pecheck run (it has held {} for more than {:g} s); let it finish, or "
          "choose another --report-dir (PECHECK_REPORT_LOCK_WAIT sets the wait in seconds)",
          target.string(), path.string(), wait_seconds));
    }
    // Writers hold the lock only while they write and swap: a short poll
    // costs nothing next to that.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

bool is_mount_point(const fs::path& target) {
  struct stat self {}, parent {};
  if (::lstat(target.c_str(), &self) != 0 || !S_ISDIR(self.st_mode)) return false;
  if (::stat(target.parent_path().c_str(), &parent) != 0) return false;
  return self.st_dev != parent.st_dev;
}

void remove_leftovers(const fs::path& target) {
  const std::string fresh = sibling_prefix(target, "new"), old = sibling_prefix(target, "old");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(fresh, 0) == 0 || name.rfind(old, 0) == 0) fs::remove_all(entry.path(), ec);
  }
}

fs::path make_staging(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0;; ++attempt) {
    const fs::path staging =
        target.parent_path() / fmt::format("{}{}.{}", sibling_prefix(target, "new"), ::getpid(), counter++);
    if (::mkdir(staging.c_str(), 0777) == 0) return staging;
    if (errno != EEXIST || attempt > 100) {
      fail(fmt::format("cannot create a directory beside {} for the new reports", target.string()), errno);
    }
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(fmt::format("cannot open {}", dir.string()), errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL): the rename order still holds.
  if (rc != 0 && err != EINVAL) fail(fmt::format("cannot sync {}", dir.string()), err);
}

fs::path swap_in(const fs::path& staging, const fs::path& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(fmt::format("cannot read {}", target.string()), errno);
    if (::rename(staging.c_str(), target.c_str()) != 0) {
      fail(fmt::format("cannot move the new reports into {}", target.string()), errno);
    }
    return {};
  }
  if (!S_ISDIR(st.st_mode)) {
    throw ReportWriteError(fmt::format("cannot write reports to {}: it is not a directory", target.string()));
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) return staging;
  const int err = errno;
  if (err == EBUSY || err == EXDEV) {
    fail(fmt::format("cannot swap the new reports into {} (is it a mount point? use a directory inside it)",
                     target.string()),
         err);
  }
  if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP) {
    fail(fmt::format("cannot swap the new reports into {}", target.string()), err);
  }
  // No atomic exchange here: move the old set aside, then the new one in.
  const fs::path aside = target.parent_path() / fmt::format("{}{}", sibling_prefix(target, "old"), ::getpid());
  if (::rename(target.c_str(), aside.c_str()) != 0) {
    fail(fmt::format("cannot move the previous reports in {} aside", target.string()), errno);
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    const int move_err = errno;
    ::rename(aside.c_str(), target.c_str());  // put the previous set back
    fail(fmt::format("cannot move the new reports into {}", target.string()), move_err);
  }
  return aside;
}

}  // namespace pecheck::report_dir

#pragma once
// The file-system steps behind write_reports (pecheck/report/report_files.h):
// the report directory's lock, its staging sibling, and the swap.
#include <filesystem>
#include <string>

namespace pecheck::report_dir {

// DIR made absolute and normal, without a trailing slash; a symbolic link is
// followed (its target is replaced, the link stays). Throws ReportWriteError
// for a path that cannot be a report directory (the root, ".." at the top).
std::filesystem::path target_of(const std::filesystem::path& dir);

// flock(LOCK_EX) on PARENT/.NAME.lock, waiting at most `wait_seconds`; throws
// ReportDirBusy after that. Released on destruction.
class Lock {
 public:
  Lock(const std::filesystem::path& target, double wait_seconds);
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  int fd_ = -1;
};

// Whether `target` is a directory on another device than its parent (a
// mount point, which rename(2) cannot replace).
bool is_mount_point(const std::filesystem::path& target);

// Removes PARENT/.NAME.new.* and PARENT/.NAME.old.*: what killed writers left
// (call only while holding the lock).
void remove_leftovers(const std::filesystem::path& target);

// Creates the empty staging directory PARENT/.NAME.new.PID.N.
std::filesystem::path make_staging(const std::filesystem::path& target);

// fsync of a directory, so the names in it survive a power loss.
void sync_directory(const std::filesystem::path& dir);

// Puts `staging` in `target`'s place in one step (RENAME_EXCHANGE, or the
// two-rename fallback); returns the path where the previous set now is, to
// be removed by the caller, or an empty path when there was none.
std::filesystem::path swap_in(const std::filesystem::path& staging, const std::filesystem::path& target);

}  // namespace pecheck::report_dir

#pragma once
// Files pecheck reads back — reports, counterexample files, regression
// entries, configs — are untrusted input (SQLite's posture toward database
// files): a symlink to /dev/zero, a FIFO, a file that grows while it is read
// or one of many gigabytes must end in a clear error naming the file, never
// in a hang or exhausted memory. read_bounded_file opens without blocking
// (a FIFO with no writer does not hang the open), accepts only a regular
// file (symlinks followed: what counts is what the path names), and reads at
// most `limit` bytes. docs/reports-and-merge.md lists the limits.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pecheck {

// A file that cannot be read, is not a regular file, or exceeds its limit;
// the message names the file and says which.
struct FileReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The limits, by what the file is. A report holds every result of a run
// (a real --no-shrink run of every property writes hundreds of MB); a
// counterexample file or regression entry holds one result; a config is
// written by hand.
inline constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{1} << 30;          // 1 GiB
inline constexpr std::uintmax_t kMaxCounterexampleBytes = std::uintmax_t{64} << 20;  // 64 MiB
inline constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{4} << 20;           // 4 MiB

// What a file may hold: any bytes, or text (JSON, TOML), which never holds a
// NUL byte: a text read stops at the first one, so a 1 GiB sparse file of
// NULs is refused after its first chunk, not read whole (issue 39).
enum class FileContent { any, text };

// The whole content of `path`; `what` names the kind of file in messages
// ("report", "counterexample file", "config file").
std::string read_bounded_file(const std::filesystem::path& path, std::uintmax_t limit, std::string_view what,
                              FileContent content = FileContent::any);

// "1.5 GiB", "64 MiB", "812 bytes": sizes in messages.
std::string size_text(std::uintmax_t bytes);

}  // namespace pecheck

#include "pecheck/core/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace pecheck {

namespace {

// What a file that is not a regular file is, for the message.
std::string_view kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string size_text(std::uintmax_t bytes) {
  if (bytes >= (std::uintmax_t{1} << 30) && bytes % (std::uintmax_t{1} << 30) == 0) {
    return fmt::format("{} GiB", bytes >> 30);
  }
  if (bytes >= (std::uintmax_t{1} << 20) && bytes % (std::uintmax_t{1} << 20) == 0) {
    return fmt::format("{} MiB", bytes >> 20);
  }
  if (bytes >= (std::uintmax_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  return fmt::format("{} bytes", bytes);
}

std::string read_bounded_file(const std::filesystem::path& path, std::uintmax_t limit, std::string_view what) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO for reading waits for a writer without it.
  Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) throw FileReadError(fmt::format("cannot read the {} {}: {}", what, name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) {
    throw FileReadError(fmt::format("cannot read the {} {}: {}", what, name, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw FileReadError(fmt::format("the {} {} is {}, not a regular file: refused", what, name, kind_of(st.st_mode)));
  }
  const auto declared = static_cast<std::uintmax_t>(st.st_size);
  auto too_large = [&](std::string_view size) {
    return FileReadError(fmt::format("the {} {} is {}, more than the {} pecheck reads in a {}: refused", what, name,
                                     size, size_text(limit), what));
  };
  if (declared > limit) throw too_large(size_text(declared));
  std::string text;
  text.resize(static_cast<std::size_t>(declared));
  std::size_t got = 0;
  // Read to the end, whatever fstat said: the file may grow (or shrink)
  // while it is read; the limit holds either way.
  while (true) {
    if (got == text.size()) {
      if (text.size() > limit) throw too_large("larger (it grew while it was read)");
      text.resize(std::min<std::uintmax_t>(limit + 1, std::max<std::uintmax_t>(2 * text.size(), 4096)));
    }
    const ssize_t n = ::read(file.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileReadError(fmt::format("cannot read the {} {}: {}", what, name, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > limit) throw too_large("larger (it grew while it was read)");
  text.resize(got);
  return text;
}

}  // namespace pecheck

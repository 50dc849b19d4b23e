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

std::string read_bounded_file(const std::filesystem::path& path, std::uintmax_t limit, std::string_view what,
                              FileContent content) {
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
  auto read_some = [&](char* into, std::size_t room) {
    while (true) {
      const ssize_t n = ::read(file.fd, into, room);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) {
        throw FileReadError(fmt::format("cannot read the {} {}: {}", what, name, std::strerror(errno)));
      }
    }
  };
  // The declared size reserved in one buffer (no second copy: a report's
  // text is the largest thing merge holds; reserved pages cost nothing until
  // read into), read in chunks to the end whatever fstat said: the file may
  // have grown (or procfs says 0); the limit holds. A text stops at the
  // chunk holding its first NUL byte.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string text;
  text.reserve(static_cast<std::size_t>(declared));
  while (true) {
    const std::size_t at = text.size();
    text.resize(at + kChunk);
    const std::size_t n = read_some(text.data() + at, kChunk);
    text.resize(at + n);
    if (n == 0) break;
    if (text.size() > limit) throw too_large("larger (it grew while it was read, or its size was not known)");
    if (content == FileContent::text) {
      if (const void* nul = std::memchr(text.data() + at, '\0', n)) {
        const auto offset = static_cast<const char*>(nul) - text.data();
        throw FileReadError(fmt::format("the {} {} holds a NUL byte at byte {}: not text, refused (read no further)",
                                        what, name, offset));
      }
    }
  }
  return text;
}

}  // namespace pecheck

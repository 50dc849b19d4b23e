#include "subjects/process/process_stat.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <vector>

#include "subjects/process/child_process.h"

namespace pecheck::process {

std::string read_proc_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[1024];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fd);
  return text;
}

namespace {

template <class T>
bool number(std::string_view word, T& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

}  // namespace

std::optional<ProcessStat> process_stat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  const std::string text = read_proc_file(fmt::format("/proc/{}/stat", pid));
  // "PID (COMM) STATE PPID …": the command may hold spaces and parentheses, so
  // the fields are counted from the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3 (state)
  std::string_view rest = std::string_view(text).substr(close + 1);
  while (!rest.empty()) {
    const auto start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const auto end = rest.find_first_of(" \n");
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  }
  // state (3), ppid (4), starttime (22), exit_code (52, since Linux 3.5).
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  ProcessStat stat;
  stat.state = fields[0][0];
  if (!number(fields[1], stat.parent) || !number(fields[19], stat.start_ticks)) return std::nullopt;
  if (fields.size() >= 50) number(fields[49], stat.exit_code);
  return stat;
}

unsigned long long boot_ticks_now() {
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  const long hz = sysconf(_SC_CLK_TCK);
  const auto ticks_per_second = static_cast<unsigned long long>(hz > 0 ? hz : 100);
  return static_cast<unsigned long long>(now.tv_sec) * ticks_per_second +
         static_cast<unsigned long long>(now.tv_nsec) * ticks_per_second / 1000000000ULL;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return describe_exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return describe_signal(WTERMSIG(status), WCOREDUMP(status));
  return fmt::format("wait status {}", status);
}

}  // namespace pecheck::process

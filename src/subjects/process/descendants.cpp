#include "subjects/process/descendants.h"
#include "subjects/process/process_stat.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

namespace pecheck::process {

namespace {

// The whole environment of `pid` (NUL-separated), or empty when it cannot be read.
std::string environment_of(const char* pid) {
  return read_proc_file(fmt::format("/proc/{}/environ", pid));
}

bool holds(const std::string& environment, const std::string& entry_prefix) {
  for (std::size_t at = environment.find(entry_prefix); at != std::string::npos;
       at = environment.find(entry_prefix, at + 1)) {
    if (at == 0 || environment[at - 1] == '\0') return true;
  }
  return false;
}

bool gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

void become_subreaper() {
  static std::once_flag once;
  std::call_once(once, [] { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); });
}

std::string new_marker() {
  static std::atomic<unsigned> serial{0};
  static const unsigned salt = std::random_device{}();
  return fmt::format("PECHECK_SUBJECT_{}_{}_{:08x}", getpid(), serial++, salt);
}

namespace {

// The processes /proc lists (other than this one) for which `keep(pid, its /proc name)` holds.
template <class Keep>
std::vector<pid_t> processes_where(Keep keep) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = getpid();
  while (const dirent* entry = readdir(proc)) {
    const char* name = entry->d_name;
    if (*name < '1' || *name > '9') continue;
    char* end = nullptr;
    const long pid = std::strtol(name, &end, 10);
    if (*end != '\0' || pid == self) continue;
    if (keep(static_cast<pid_t>(pid), name)) found.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return found;
}

}  // namespace

std::vector<pid_t> marked_processes(const std::string& marker) {
  const std::string prefix = marker + "=";
  return processes_where([&prefix](pid_t, const char* name) { return holds(environment_of(name), prefix); });
}

void kill_subject_processes(pid_t group, const std::string& marker, std::chrono::milliseconds limit) {
  kill(-group, SIGKILL);
  std::vector<pid_t> marked;
  const auto until = std::chrono::steady_clock::now() + limit;
  // A marked process may fork between a search and its kill: search until a
  // round finds nothing new (killed processes keep their environment until
  // they are reaped, so a round that finds only known ones is the last).
  for (int round = 0; round < 8 && std::chrono::steady_clock::now() < until; ++round) {
    bool fresh = false;
    for (pid_t pid : marked_processes(marker)) {
      kill(pid, SIGKILL);
      if (std::find(marked.begin(), marked.end(), pid) == marked.end()) marked.push_back(pid), fresh = true;
    }
    if (!fresh) break;
  }
  // The leader first: SIGKILL ends it promptly, and until now its pid (the
  // group id) could not be reused.
  while (waitpid(group, nullptr, 0) < 0 && errno == EINTR) {
  }
  while (true) {
    // Group members and marked processes whose parents died are this
    // process's children now (it is their subreaper): reap them.
    while (waitpid(-group, nullptr, WNOHANG) > 0) {
    }
    std::erase_if(marked, [](pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == pid || gone(pid); });
    if ((marked.empty() && gone(-group)) || std::chrono::steady_clock::now() >= until) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

namespace {

std::mutex held_mutex;
std::vector<pid_t>& held() {
  static std::vector<pid_t> pids;
  return pids;
}

bool is_held(pid_t pid) {
  std::lock_guard lock(held_mutex);
  return std::find(held().begin(), held().end(), pid) != held().end();
}

}  // namespace

void hold_child(pid_t pid) {
  std::lock_guard lock(held_mutex);
  held().push_back(pid);
}

void release_child(pid_t pid) {
  std::lock_guard lock(held_mutex);
  std::erase(held(), pid);
}

std::vector<pid_t> children_of_this_process() {
  const pid_t self = getpid();
  return processes_where([self](pid_t pid, const char*) {
    const auto stat = process_stat(pid);
    return stat && stat->parent == self;
  });
}

int kill_orphans(std::chrono::milliseconds limit) {
  int killed = 0;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (true) {
    std::vector<pid_t> orphans = children_of_this_process();
    std::erase_if(orphans, is_held);
    if (orphans.empty()) return killed;
    for (pid_t pid : orphans) {
      if (kill(pid, SIGKILL) == 0) ++killed;
    }
    // Reaped one by one: once waitpid returns, its own children are
    // reparented here already, and the next search finds them.
    for (pid_t pid : orphans) {
      while (true) {
        if (waitpid(pid, nullptr, WNOHANG) != 0 || gone(pid)) break;
        if (std::chrono::steady_clock::now() >= until) return killed;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (std::chrono::steady_clock::now() >= until) return killed;
  }
}

}  // namespace pecheck::process

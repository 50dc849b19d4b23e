#include "support/cli.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace pecheck::testing {

CliResult run_cli(const std::vector<std::string>& args, const CliOptions& options) {
  const char* bin = std::getenv("PECHECK_BIN");
  if (bin == nullptr) throw std::runtime_error("PECHECK_BIN is not set (run through ctest)");
  std::vector<std::string> argv_s{bin};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, bin, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot start " + std::string(bin));
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);

  CliResult result;
  char buf[65536];
  auto drain = [&] {
    ssize_t n = 0;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) result.output.append(buf, static_cast<size_t>(n));
  };
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int status = 0;
  rusage usage{};
  bool terminated = false;
  double armed_at = options.terminate_after_file.empty() ? 0 : -1;  // when terminate_after starts counting
  // Wait for pecheck itself, not for EOF: a process it leaked could hold the pipe open.
  while (wait4(pid, &status, WNOHANG, &usage) != pid) {
    pollfd readable{fds[0], POLLIN, 0};
    poll(&readable, 1, 5);
    drain();
    if (armed_at < 0 && std::filesystem::exists(options.terminate_after_file)) armed_at = elapsed();
    if (options.terminate_after > 0 && !terminated && armed_at >= 0 && elapsed() - armed_at > options.terminate_after) {
      for (int k = 0; k < options.terminate_signals; ++k) {
        if (k > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        kill(pid, SIGTERM);
      }
      terminated = true;
    }
    if (elapsed() > options.limit_seconds * time_scale()) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
  }
  drain();
  close(fds[0]);
  result.seconds = elapsed();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.max_rss_kib = usage.ru_maxrss;
  return result;
}

std::string temp_dir(const std::string& prefix) {
  std::string pattern = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                        "/" + prefix + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

FreshWorkingDirectory::FreshWorkingDirectory() { std::filesystem::current_path(temp_dir("pecheck-cwd")); }

std::string ctest_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) throw std::runtime_error(std::string(name) + " is not set (run through ctest)");
  return value;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool sanitized() {
  const char* value = std::getenv("PECHECK_SANITIZED");
  return value != nullptr && std::string(value) == "1";
}

double time_scale() { return sanitized() ? 4.0 : 1.0; }
double memory_scale() { return sanitized() ? 4.0 : 1.0; }

}  // namespace pecheck::testing

#include "pecheck/core/interrupt.h"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <mutex>

namespace pecheck {

namespace {

constexpr int kMaxGroups = 256;
std::atomic<pid_t> live_groups[kMaxGroups];
std::atomic<bool> graceful{false};
std::atomic<int> received{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void kill_subjects() {
  for (auto& group : live_groups) {
    const pid_t g = group.load();
    if (g > 0) kill(-g, SIGKILL);
  }
}

// When the graceful stop was asked (CLOCK_MONOTONIC, ns; async-signal-safe to read).
std::atomic<long long> received_at{0};
// A stop delivered twice within this is one stop: `timeout` and CI runners
// signal the process and then its whole group, so pecheck gets it twice.
constexpr long long kSameStopNs = 1'000'000'000;

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_interrupt(int sig) {
  if (graceful.load() && received.load() == 0) {
    // Recorded before the subjects are killed: a cell that sees its subject
    // die then knows it was the stop, not the subject.
    received_at.store(now_ns());
    received.store(sig);
    kill_subjects();
    return;
  }
  if (graceful.load() && now_ns() - received_at.load() < kSameStopNs) return;  // the same stop again
  // A second stop, later: end pecheck at once.
  kill_subjects();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction current {};
      // Leave alone a signal someone ignores or handles already.
      if (sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction handler {};
      handler.sa_handler = on_interrupt;
      sigemptyset(&handler.sa_mask);
      sigaction(sig, &handler, nullptr);
    }
  });
}

void finish_on_interrupt(bool on) { graceful.store(on); }

int interrupt_signal() { return received.load(); }

std::string interrupt_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

void watch_group(pid_t group) {
  install_interrupt_handlers();
  for (auto& slot : live_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
}

void unwatch_group(pid_t group) {
  for (auto& slot : live_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace pecheck

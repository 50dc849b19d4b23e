#include "pecheck/core/interrupt.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace pecheck {

namespace {

constexpr int kMaxGroups = 256;
std::atomic<pid_t> live_groups[kMaxGroups];
std::atomic<bool> graceful{false};
std::atomic<int> received{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_interrupt(int sig) {
  for (auto& group : live_groups) {
    const pid_t g = group.load();
    if (g > 0) kill(-g, SIGKILL);
  }
  if (graceful.load() && received.load() == 0) {
    received.store(sig);
    for (int s : kSignals) signal(s, SIG_DFL);  // a second signal ends pecheck at once
    return;
  }
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

#pragma once
// Ctrl-C, a CI job's SIGTERM, a closed terminal's SIGHUP. Subjects run in
// their own process groups, so the signal reaches pecheck alone; the handler
// kills every live subject group at once (a hanging subject would otherwise
// outlive pecheck). Then, by default, pecheck dies of the signal. Once
// `pecheck run` has asked for a graceful stop, the handler records the
// signal and returns instead: the run stops starting cells, ends the running
// ones, and writes its reports with what it has, marked interrupted (exit
// 128 + the signal: 130 for SIGINT, 143 for SIGTERM). A second signal a
// second or more later kills pecheck outright; one within a second is the
// same stop delivered twice (`timeout` and CI runners signal the process and
// then its group).
#include <sys/types.h>

#include <string>

namespace pecheck {

// Installs the handler for SIGINT, SIGTERM and SIGHUP where no one handles or
// ignores them already. Idempotent; async-signal-safe work only.
void install_interrupt_handlers();

// pecheck run: record the signal and return (true), or die of it (false, the default).
void finish_on_interrupt(bool graceful);

// The signal that asked a graceful run to stop, or 0.
int interrupt_signal();
// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string interrupt_name(int sig);

// Process groups of live subjects, which the handler kills (lock-free slots).
void watch_group(pid_t group);
void unwatch_group(pid_t group);

}  // namespace pecheck

#pragma once
// What /proc/PID/stat says about a process pecheck does not own (a forked
// copy of a subject: its parent is the subject's zygote, not pecheck): its
// parent, its state, when it started, and how it ended while it waits to be
// reaped. Linux only, as the rest of pecheck's process handling.
#include <sys/types.h>

#include <optional>
#include <string>

namespace pecheck::process {

struct ProcessStat {
  char state = '?';                  // R, S, D, Z (ended, not yet reaped), …
  pid_t parent = 0;
  unsigned long long start_ticks = 0;  // when it started: clock ticks since boot
  int exit_code = 0;                 // a wait status, valid once state is 'Z'
};

// The whole of a small file under /proc (stat, environ, …), or empty when it
// cannot be read (the process is gone, or is not ours to read).
std::string read_proc_file(const std::string& path);

// None when the process does not exist (or its stat cannot be read).
std::optional<ProcessStat> process_stat(pid_t pid);

// The boot-time clock now, in the ticks of ProcessStat::start_ticks (rounded
// down): a process started after this call has start_ticks ≥ the result.
unsigned long long boot_ticks_now();

// "exit 1", "signal 11 (SIGSEGV)", … for a wait status.
std::string describe_wait_status(int status);

}  // namespace pecheck::process

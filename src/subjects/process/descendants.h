#pragma once
// Finding a subject's processes after they left its process group. A
// subject's group is killed as one, but a descendant that called setsid()
// (a daemon, a server a test fixture started) has left it. Each subject is
// started with a marker variable of its own in its environment, which its
// descendants inherit; when the subject stops, every process carrying it is
// killed. pecheck makes itself a child subreaper, so the orphans among them
// become its children and are reaped rather than left as zombies of init.
// A descendant that clears its environment as well escapes; no portable
// means catches that without privileges (cgroups would).
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace pecheck::process {

// prctl(PR_SET_CHILD_SUBREAPER) for this process, once; harmless where it fails.
void become_subreaper();

// A fresh marker for one subject: "PECHECK_SUBJECT_<pid>_<serial>_<random>".
std::string new_marker();

// The processes (other than this one) whose environment holds `marker=…`,
// among those this user may read.
std::vector<pid_t> marked_processes(const std::string& marker);

// Kills every process of a stopped subject: its group `group` (the leader's
// pid) and every marked process, searching again until a search finds
// nothing new (one may fork meanwhile); then reaps the leader, and for up
// to `limit` the group members and marked processes whose parents died
// (this process is their subreaper, so they are its children now). The
// leader must be this process's child, not yet reaped (so that its pid, the
// group id, cannot have been reused).
void kill_subject_processes(pid_t group, const std::string& marker, std::chrono::milliseconds limit);

}  // namespace pecheck::process

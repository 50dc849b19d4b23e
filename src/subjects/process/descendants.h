#pragma once
// Finding a subject's processes after they left its process group. A
// subject's group is killed as one, but a descendant that called setsid()
// (a daemon, a server a test fixture started) has left it. Each subject is
// started with a marker variable of its own in its environment, which its
// descendants inherit; when the subject stops, every process carrying it is
// killed. pecheck makes itself a child subreaper, so the orphans among them
// become its children and are reaped rather than left as zombies of init.
// A descendant that clears its environment as well escapes that search, but
// not the subreaper: once its parent dies it is this process's child, and
// kill_orphans (which `pecheck run` calls before it exits) kills every child
// that is not a subject it started and still runs.
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

// The subjects this process started and has not stopped (ChildProcess
// registers each leader at its spawn and forgets it at its stop): the only
// children of this process that are not orphans.
void hold_child(pid_t pid);
void release_child(pid_t pid);

// The children of this process (from /proc: each process's parent), zombies included.
std::vector<pid_t> children_of_this_process();

// Kills and reaps every child of this process that it does not hold: the
// processes reparented to it as their subreaper, whatever their marker,
// group or session (a daemon that called setsid and cleared its
// environment). Killing one makes its own children orphans, reparented here
// in turn: repeated until a search finds none, or `limit` has passed.
// Returns how many it killed.
int kill_orphans(std::chrono::milliseconds limit);

}  // namespace pecheck::process

#pragma once
// A subject that declared "fork" (docs/SUBJECT-PROTOCOL.md, "Fresh copies by
// fork"), kept as a zygote: after its hello pecheck sends it only `fork`
// requests, and every instance pecheck needs — each job's, each fresh copy
// history_independence compares with — is a copy it forks: a process in the
// state of one that has just answered hello, imports and model built, made in
// milliseconds instead of a start-up.
//
// Each copy is checked before it is used, so a broken fork is a subject
// failure, never a quiet reuse of a process with a history: the process that
// connects to both sockets must be the one the fork answer names (its
// socket's peer credentials), a process that did not exist before the
// request (its start time), a child of the same parent as every other copy,
// and it must answer hello exactly as the zygote did. A copy that dies
// before connecting, or does not connect within the subject timeout, fails
// the same way. From the first broken fork on, every copy asked for is that
// failure (copies checked before it go on).
//
// A copy that ends stays the zygote's zombie until pecheck has read how it
// ended (its signal, for a crash) and lists it in a fork request's `reap`.
//
// Copies are prepared ahead (a few forked, connected and greeted while the
// cells judge the previous case) on one thread per zygote, which also ends
// the copies given back: each is told to shut down and given its grace to
// exit, then killed. No copy outlives the zygote: the zygote's stop kills
// what is left (a cmd: subject's whole process group and marked descendants,
// copies and whatever they started included).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/subject.h"
#include "subjects/process/copy_peer.h"

namespace pecheck::process {

// A fork request's answer gets at least this long, whatever the subject
// timeout: it is the zygote's fork(2), not the subject's code, and a loaded
// Linux machine can hold a fork for many seconds (a reverse-map walker such as
// DAMON's kdamond holds the anon_vma lock that the zygote and all its copies
// share; 23 s was measured on a 2-core machine running the test suite). The
// copy's connections, after the fork, keep the subject timeout.
inline constexpr double kForkFloorSeconds = 60;

inline double fork_limit_seconds(double subject_timeout) { return std::max(subject_timeout, kForkFloorSeconds); }

// The conversation with the zygote (a process subject that answered hello
// with "fork": true).
class ZygoteLink {
 public:
  virtual ~ZygoteLink() = default;
  // What a fork request sent, and the pid its answer names.
  struct Forked {
    std::string request;
    long pid = 0;
  };
  // Sends one fork request naming the two sockets and the copies the zygote
  // may reap. Throws SubjectFailure (the zygote is stopped then).
  virtual Forked request_fork(const std::string& socket, const std::string& log, const std::vector<long>& reap) = 0;
  virtual const SubjectInfo& info() const = 0;
  // The hello result as the zygote answered it.
  virtual const json& hello() const = 0;
  virtual std::string log_tail() const = 0;
  // Reads what the zygote's stderr holds now, for up to `limit` (what a copy
  // wrote there before it connected its own).
  virtual void drain_log(std::chrono::milliseconds limit) = 0;
};

// A copy's subject: a process subject on `peer` that says hello and checks
// the answer is `expected` (process_subject.cpp). Throws SubjectFailure.
SubjectPtr make_copy_subject(std::unique_ptr<Peer> peer, const SubjectInfo& zygote, const json& expected,
                             const SubjectOptions& options);

// A copy in use: its subject, and its peer inside it.
struct Copy {
  SubjectPtr subject;
  CopyPeer* peer = nullptr;
};

class Zygote {
 public:
  // `sockets`: the private folder its copies' sockets go in.
  Zygote(std::unique_ptr<ZygoteLink> link, SocketFolder sockets, const SubjectOptions& options);
  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;
  ~Zygote();

  const SubjectInfo& info() const { return link_->info(); }
  // A copy that has answered hello, ready for requests (a prepared one when
  // there is one). Thread-safe. Throws SubjectFailure when the zygote or
  // the fork is broken (and from then on, for every later copy).
  Copy take();
  // Ends a copy's conversation (off the caller's thread).
  void give_back(Copy copy);
  // Copies forked so far.
  int forked() const;
  // The zygote's own failure, if it broke: waits up to `limit` for a fork in
  // progress to end (a copy in use dies with its zygote, which fails on the
  // worker's thread: the copy's "ended" is only the consequence).
  std::optional<SubjectFailure> failure(std::chrono::milliseconds limit) const;

 private:
  Copy fork_one();
  void work();

  std::unique_ptr<ZygoteLink> link_;
  SubjectOptions options_;
  std::shared_ptr<ExitWatch> exits_ = std::make_shared<ExitWatch>();
  SocketFolder sockets_;
  pid_t parent_ = 0;  // the parent of every copy: the process that forked the first
  // The copies the zygote has not been told to reap (the worker's alone):
  // each is listed in the first fork request after its ending is kept.
  std::vector<std::shared_ptr<CopyEnding>> unreaped_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Copy> ready_;    // prepared copies, oldest first
  std::deque<Copy> closing_;  // copies given back, to end
  std::optional<SubjectFailure> broken_;
  bool stopping_ = false;
  bool forking_ = false;  // the worker is in fork_one
  int forked_ = 0;
  std::thread worker_;  // started by the first take()
};

}  // namespace pecheck::process

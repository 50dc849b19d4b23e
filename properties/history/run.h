#pragma once
// The pieces of history_independence's state machine (history/independence.cpp): the
// model the commands are generated from, the request generators per op, the
// answers of fresh copies (remembered per cell), and the system under test:
// a fresh copy running the script, each answer compared as it comes.
#include <rapidcheck.h>

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/property/fresh.h"
#include "pecheck/property/property.h"
#include "history/script.h"
#include "pecheck/protocol/calls.h"

namespace pecheck::history {

inline constexpr std::string_view kCheck = "same answer as a fresh subject";

// What generation needs to know about the requests so far: where each decode
// session goes on (its last position + 1), so sessions decode in order.
struct HistoryModel {
  std::map<std::string, Position> next;
};

// Requests for the ops a subject offers (encode, attention, rotate, bias,
// forward, decode with reset), sized to what it declares: its width, its
// rotary_dim, its heads, seq_len always for a length-dependent rotary.
// Positions come mostly small, sometimes up to max_position and at the
// edges where caches and precisions change (16, 256, 2048 and neighbours).
class RequestGens {
 public:
  explicit RequestGens(const GenContext& ctx);
  // One request of any offered op (decode continuing a session of `model`).
  rc::Gen<Call> any(const HistoryModel& model) const;
  // A script of `length` requests for a ladder case (property/sizes.h:
  // history): each either one of a few requests of the stateless ops, drawn
  // once and asked again and again (so that fresh copies answer only those
  // few), or, for a subject that decodes, the next token of one long session
  // — long enough to pass a cache's capacity or a sliding window.
  rc::Gen<Script> long_script(int length) const;

 private:
  rc::Gen<Position> position() const;
  rc::Gen<Positions> positions() const;
  rc::Gen<Call> encode() const;
  rc::Gen<Call> rotate() const;
  rc::Gen<Call> attention() const;
  rc::Gen<Call> bias() const;
  rc::Gen<Call> forward() const;
  rc::Gen<Call> decode(const HistoryModel& model) const;
  rc::Gen<Call> reset() const;
  // The stateless ops offered (encode, rotate, attention, bias, forward), weighted alike.
  std::vector<std::pair<int, rc::Gen<Call>>> stateless_choices() const;
  // One request of a stateless op, or none offered.
  std::optional<rc::Gen<Call>> stateless() const;
  // Widths and counts as the subject's declared shapes allow (property/sizes.h).
  rc::Gen<int> among(Op op, Axis axis, std::vector<int> usual, int lo, int hi) const;
  int decode_width() const;

  GenContext ctx_;
  SubjectInfo info_;
  Position max_position_;
};

// The key of a decode chain: `before` (the key of the chain without its last
// decode; empty for the first) and the last decode's request.
std::string chained_key(const std::string& before, const Call& call);

// The proof that forked copies are fresh (issue 39), kept for a whole cell:
// its search's scripts and its ladder's long ones alike (a cache grown by a
// ladder case's long requests, in memory every fork shares, shows on the
// search's short probe). A copy started anew answers each probe once: a new
// process's first answer to a request does not change, so later proofs cost
// one fork each.
struct FreshProof {
  explicit FreshProof(FreshSubject start_anew) : afresh(std::move(start_anew)) {}
  FreshSubject afresh;             // a copy started anew from the spec
  std::mutex mutex;                // what follows
  int scripts = 0;                 // scripts run in the cell
  std::optional<Call> shortest;    // the stateless request that reaches least past position 0, so far: the probe
  Position longest = 0;            // the furthest any script has reached
  Position proven_at = 0;          // `longest` at the last proof
  std::string anew_probe;          // the probe (JSON) a copy started anew answered ...
  std::optional<Answer> anew;      // ... and its answer
};

// Answers of fresh copies: one copy per request (per decode chain), each
// answer remembered by the request's JSON. Where copies are forked (`ahead`),
// a script's copies are asked ahead, a few at once, while the scripted copy
// runs (prefetch); answer() waits for the one it needs. Copies started afresh
// are asked one at a time as answer() needs them (a start-up of each at once
// would slow every one, on a loaded machine past the subject timeout).
class ReferenceAnswers {
 public:
  ReferenceAnswers(FreshSubject fresh, bool ahead) : fresh_(std::move(fresh)), ahead_(ahead) {}
  ReferenceAnswers(const ReferenceAnswers&) = delete;
  ReferenceAnswers& operator=(const ReferenceAnswers&) = delete;
  ~ReferenceAnswers();  // waits for the copies still answering
  SubjectPtr start();
  // Plans a copy for every answer of `script` not known yet: one per request
  // (the first excepted: the scripted copy's own answer is a fresh one), one
  // per decode chain (all its prefixes); asks them now, up to kAtOnce at a
  // time, where copies are forked, else when answer() first needs each.
  // Errors come out of answer() for the request that needed them.
  void prefetch(const std::vector<Call>& script);
  // The answer of a fresh copy to `call`; for a decode, `chain` is the
  // session's decodes since its last reset, `call` its last, and keys[k]
  // names the chain's first k + 1 decodes (chained_key).
  const Answer& answer(const Call& call, const std::vector<Call>& chain, const std::vector<std::string>& keys);
  // Records `got`, the answer of a copy that had answered nothing before, as
  // the fresh answer to `call` (with `keys` as for answer()) unless one is
  // known: no copy is made for the first request of a script. False when
  // one was known (and `got` is to be compared with it).
  bool remember_first(const Call& call, const std::vector<std::string>& keys, const Answer& got);
  int started() const { return started_; }
  // Forked copies proven fresh (issue 39): where copies are forked and the
  // spec can start the subject anew (`afresh`), the shortest stateless
  // request past position 0 of the cell's scripts so far, asked first of a copy forked now and of
  // a copy started anew, must get the same answer within the same-request
  // bound; a difference is a SubjectFailure naming state shared across forks
  // (memory mapped before the fork, a file): the forked copies' answers
  // cannot stand for a fresh copy's. Proved after the cell's 5th and 25th
  // script (state that builds up with requests), and after every script
  // that reaches more than twice as far as any before the last proof and
  // further than the probe (a cache grown by a long request: caught at
  // any case count, the ladder's long scripts included; a few proofs per
  // cell, each a fork).
  void prove_fresh(const std::vector<Call>& script, const BoundModel& model);
  // The proof is this cell's (shared with its other ReferenceAnswers), or
  // one of its own (a counterexample's diagnosis).
  void share_proof(std::shared_ptr<FreshProof> proof) { proof_ = std::move(proof); }
  void start_afresh_with(FreshSubject afresh) { proof_ = std::make_shared<FreshProof>(std::move(afresh)); }
  // The difference between the first answer to `probe` of a copy forked now
  // and of a copy started anew, in words; none where they agree or no copy
  // can be started anew.
  std::optional<std::string> fork_differs(const Call& probe, const BoundModel& model);

 private:
  static constexpr std::ptrdiff_t kAtOnce = 2;  // copies answering at once, beside the scripted one
  // Answers `calls` (one request, or a decode chain) on one fresh copy and
  // remembers each under `keys` (the chain's prefixes).
  void ask(const std::vector<Call>& calls, const std::vector<std::string>& keys);
  std::string key(const Call& call, const std::vector<std::string>& keys) const;

  FreshSubject fresh_;
  bool ahead_;
  // The scripts after which forked copies are compared with a new one: early, and once state shared
  // across forks has had time to build up.
  static constexpr int kProveAt[] = {5, 25};
  std::shared_ptr<FreshProof> proof_;  // empty: no proof possible
  std::mutex mutex_;                                       // answers_ and pending_
  std::map<std::string, Answer> answers_;                  // node-stable: answer() returns references
  std::map<std::string, std::shared_future<void>> pending_;  // keys a copy is answering now
  std::vector<std::shared_future<void>> asked_;            // every copy asked ahead, to wait for
  std::counting_semaphore<kAtOnce> at_once_{kAtOnce};
  std::atomic<int> started_{0};
  // chain key → the fresh copy that answered that chain, to go on with its next decode
  std::map<std::string, SubjectPtr> live_;
};

// The system under test: a fresh copy running the script. Each answer is
// compared with the reference's at once; the measurement holds the request
// whose difference is furthest past its bound.
class HistoryRun {
 public:
  HistoryRun(Subject& scripted, ReferenceAnswers& reference, const BoundModel& model)
      : scripted_(scripted), reference_(reference), model_(model) {}
  void answer(const Call& call);
  // Throws Refusal when the script asked nothing that was answered.
  Measurement measurement() const;

 private:
  Subject& scripted_;
  ReferenceAnswers& reference_;
  const BoundModel& model_;
  std::map<std::string, std::vector<Call>> chains_;  // per session: decodes since its last reset
  std::map<std::string, std::vector<std::string>> chain_keys_;  // ... and the keys of their prefixes
  std::vector<std::string> shown_;                   // the requests so far, in words
  std::optional<Check> worst_;
  double worst_ratio_ = -1;
  int answered_ = 0;
  std::string first_refusal_;
  bool first_was_own_ = false;  // the first request's fresh answer was the scripted copy's own
};

}  // namespace pecheck::history

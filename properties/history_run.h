#pragma once
// The pieces of history_independence's state machine (history.cpp): the
// model the commands are generated from, the request generators per op, the
// answers of fresh copies (remembered per cell), and the system under test:
// a fresh copy running the script, each answer compared as it comes.
#include <rapidcheck.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/property/fresh.h"
#include "pecheck/property/property.h"
#include "history_script.h"
#include "pecheck/subjects/calls.h"

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
  // One request of a stateless op (encode, rotate, attention, bias, forward), or none offered.
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

// Answers of fresh copies: one copy per request (per decode chain), each
// answer remembered by the request's JSON.
class ReferenceAnswers {
 public:
  explicit ReferenceAnswers(FreshSubject fresh) : fresh_(std::move(fresh)) {}
  SubjectPtr start();
  // The answer of a fresh copy to `call`; for a decode, `chain` is the
  // session's decodes since its last reset, `call` its last, and keys[k]
  // names the chain's first k + 1 decodes (chained_key).
  const Answer& answer(const Call& call, const std::vector<Call>& chain, const std::vector<std::string>& keys);
  int started() const { return started_; }

 private:
  FreshSubject fresh_;
  std::map<std::string, Answer> answers_;
  std::map<std::string, SubjectPtr> live_;  // chain key → the fresh copy that answered that chain, to go on
  int started_ = 0;
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
};

}  // namespace pecheck::history

#include "history/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "pecheck/core/overloaded.h"
#include "history/script.h"

namespace pecheck::history {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::size_t kShownRequests = 12;  // the requests before the worst one, in its note

// The largest difference between two answers to one request, where, and the
// two values there.
struct Difference {
  double error = 0;
  Location where;
  json observed, expected;
};

double entry_error(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;   // the same NaN twice is no history
  if (a == b) return 0;                           // the same infinity too
  const double e = std::fabs(a - b);
  return std::isnan(e) ? kInfinity : e;
}

void compare_rows(Difference& d, const Matrix& got, const Matrix& want, std::optional<std::int64_t> batch,
                  const BoolMatrix* padding) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    d.error = kInfinity;
    d.observed = fmt::format("a {}×{} answer", got.rows(), got.cols());
    d.expected = fmt::format("a {}×{} answer", want.rows(), want.cols());
    d.where.batch = batch;
    return;
  }
  for (Eigen::Index r = 0; r < want.rows(); ++r) {
    if (padding != nullptr && batch && !(*padding)(*batch, r)) continue;  // a pad's row is not compared
    for (Eigen::Index c = 0; c < want.cols(); ++c) {
      const double e = entry_error(got(r, c), want(r, c));
      if (e <= d.error) continue;
      d.error = e;
      d.where.batch = batch;
      d.where.row = r;
      d.where.column = c;
      d.observed = number_to_json(got(r, c));
      d.expected = number_to_json(want(r, c));
    }
  }
}

Difference difference(const Answer& got, const Answer& want, const Call& call) {
  Difference d;
  const auto* refused_got = std::get_if<Refused>(&got);
  const auto* refused_want = std::get_if<Refused>(&want);
  if (refused_got || refused_want || got.index() != want.index()) {
    d.error = kInfinity;
    d.observed = refused_got ? json("refused: " + refused_got->reason) : json("an answer");
    d.expected = refused_want ? json("refused: " + refused_want->reason) : json("an answer");
    return d;
  }
  std::visit(Overloaded{[&](const Matrix& m) { compare_rows(d, m, std::get<Matrix>(want), std::nullopt, nullptr); },
                        [&](const Batch& y) {
                          const auto& w = std::get<Batch>(want);
                          const auto* forward = std::get_if<ForwardCall>(&call);
                          const BoolMatrix* padding =
                              forward != nullptr && forward->padding.size() > 0 ? &forward->padding : nullptr;
                          if (y.size() != w.size()) {
                            d.error = kInfinity;
                            d.observed = fmt::format("{} sequences", y.size());
                            d.expected = fmt::format("{} sequences", w.size());
                            return;
                          }
                          for (size_t b = 0; b < y.size(); ++b) {
                            compare_rows(d, y[b], w[b], static_cast<std::int64_t>(b), padding);
                          }
                        },
                        [&](const Vector& v) {
                          compare_rows(d, Matrix(v.transpose()), Matrix(std::get<Vector>(want).transpose()),
                                       std::nullopt, nullptr);
                        },
                        [](const Done&) {}, [](const Refused&) {}},
             got);
  return d;
}

double magnitude(const Answer& a) {
  double top = 1;
  auto take = [&top](const Matrix& m) {
    if (m.size() > 0 && std::isfinite(m.cwiseAbs().maxCoeff())) top = std::max(top, m.cwiseAbs().maxCoeff());
  };
  std::visit(Overloaded{[&](const Matrix& m) { take(m); },
                        [&](const Batch& y) {
                          for (const auto& m : y) take(m);
                        },
                        [&](const Vector& v) { take(Matrix(v.transpose())); }, [](const Done&) {},
                        [](const Refused&) {}},
             a);
  return top;
}

// Two answers to one request by the same code: identical for a deterministic
// subject; one whose reductions run in another order each time (threads, GPU
// atomics) may differ by the rounding of its inner sums — so the bound is
// the request's inner-sum length, in the precision that sums.
Bound same_request_bound_worst(const Call& call, const Answer& want, std::size_t chain) {
  const double scale = magnitude(want);
  return std::visit(
      Overloaded{
          [&](const AttentionCall& c) {
            return Bound::upper(static_cast<double>(c.q.cols() + c.k.rows()), scale,
                                "(d_k + m) terms of a logit and a softmax sum · max(1, |y|)", Stage::accumulate);
          },
          [&](const ForwardCall& c) {
            const double width = c.x.empty() ? 0 : static_cast<double>(c.x.front().cols());
            const double tokens = c.x.empty() ? 0 : static_cast<double>(c.x.front().rows());
            return Bound::upper(12 * (4 * width + tokens), scale, "12 stages · (4·width + N) · max(1, |y|)",
                                Stage::accumulate);
          },
          [&](const DecodeCall& c) {
            return Bound::upper(12 * (4 * static_cast<double>(c.x.size()) + static_cast<double>(chain)), scale,
                                "12 stages · (4·width + tokens decoded) · max(1, |y|)", Stage::accumulate);
          },
          [&](const auto&) {
            return Bound::upper(1, scale, "one rounding of the answer · max(1, |y|)", Stage::values);
          }},
      call);
}

Bound same_request_bound(const Call& call, const Answer& want, std::size_t chain) {
  Bound b = same_request_bound_worst(call, want, chain);
  // Two evaluations of one sum in two orders differ like √length, not length
  // (issue 36, result/tight_bound.h): the worst case above stays the ceiling.
  b.probabilistic(2, "two answers to one request, their sums in two orders");
  return b;
}

}  // namespace

ReferenceAnswers::~ReferenceAnswers() {
  for (auto& asked : asked_) asked.wait();
}

SubjectPtr ReferenceAnswers::start() {
  ++started_;
  SubjectPtr subject = fresh_();
  if (!subject) throw Refusal("no fresh copy of the subject could be started");
  return subject;
}

namespace {

// How far a request reaches (its longest position or length): caches grown by
// long requests show on short ones.
Position reach(const Call& call) {
  Position out = 0;
  auto over = [&out](const Positions& p) {
    for (Position t : p) out = std::max(out, t + 1);
  };
  if (const auto* e = std::get_if<EncodeCall>(&call)) {
    over(e->positions);
    out = std::max(out, e->seq_len);
  } else if (const auto* r = std::get_if<RotateCall>(&call)) {
    over(r->positions);
    for (const auto& axis : r->axes) over(axis);
    out = std::max(out, r->seq_len.value_or(0));
  }
  return out;
}

}  // namespace

void ReferenceAnswers::prove_fresh(const std::vector<Call>& script, const BoundModel& model) {
  if (!proof_ || !proof_->afresh || !ahead_) return;
  FreshProof& p = *proof_;
  std::optional<Call> probe;
  {
    std::lock_guard lock(p.mutex);
    // The stateless request of the cell's scripts so far that reaches least
    // past position 0 (at position 0 alone every frequency gives sin 0 and
    // cos 0: a grown table cannot show): the first request of a copy forked
    // now and of a copy started anew. A copy is fresh when its first answer
    // is a new process's.
    const auto better_probe = [](const Call& a, const Call& b) {
      const Position ra = reach(a), rb = reach(b);
      if ((ra >= 2) != (rb >= 2)) return ra >= 2;
      return ra < rb;
    };
    Position reached = 0;
    for (const Call& call : script) {
      if (std::holds_alternative<DecodeCall>(call) || std::holds_alternative<ResetCall>(call)) continue;
      if (!p.shortest || better_probe(call, *p.shortest)) p.shortest = call;
      reached = std::max(reached, reach(call));
    }
    ++p.scripts;
    p.longest = std::max(p.longest, reached);
    if (!p.shortest) return;
    const bool counted = std::find(std::begin(kProveAt), std::end(kProveAt), p.scripts) != std::end(kProveAt);
    const bool further = p.longest > std::max<Position>(2 * p.proven_at, reach(*p.shortest));
    if (!counted && !further) return;
    p.proven_at = p.longest;
    probe = *p.shortest;
  }
  if (auto why = fork_differs(*probe, model)) throw SubjectFailure(*why, request_to_json(*probe).dump());
}

std::optional<std::string> ReferenceAnswers::fork_differs(const Call& probe, const BoundModel& model) {
  if (!proof_ || !proof_->afresh || !ahead_) return std::nullopt;
  FreshProof& p = *proof_;
  const SubjectPtr forked = start();
  const Answer by_fork = forked->perform(probe);
  Answer by_new;
  int scripts = 0;
  {
    std::lock_guard lock(p.mutex);
    const std::string key = request_to_json(probe).dump();
    if (!p.anew || p.anew_probe != key) {
      const SubjectPtr anew = p.afresh();
      p.anew = anew->perform(probe);
      p.anew_probe = key;
    }
    by_new = *p.anew;
    scripts = p.scripts;
  }
  if (std::holds_alternative<Refused>(by_fork) && std::holds_alternative<Refused>(by_new)) return std::nullopt;
  const Difference d = difference(by_fork, by_new, probe);
  const double limit = model.value(same_request_bound(probe, by_new, 0));
  if (!(d.error > limit)) return std::nullopt;
  return fmt::format("forked copies are not fresh: {}a copy forked now answers its first request {} "
                     "differently from a copy started anew from its command (error {:.3g} > bound {:.3g}{}): state "
                     "is shared across forks (memory mapped before the first fork, a file, a server), so a forked "
                     "copy cannot stand for a fresh one and history_independence cannot be judged through them; "
                     "keep the state per process (or serve without fork)",
                     scripts > 0 ? fmt::format("after {} scripts, ", scripts) : "", describe(probe), d.error, limit, d.where.label.empty() ? "" : ", at " + d.where.label);
}

std::string chained_key(const std::string& before, const Call& call) {
  // A digest of the chain's requests, one request at a time: a session of
  // hundreds of decodes is keyed in time linear in its length.
  const std::string text = before + request_to_json(call).dump();
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x6c62272e07bb0142ULL;
  for (unsigned char c : text) {
    a = (a ^ c) * 0x100000001b3ULL;
    b = ((b ^ c) * 0x100000001b3ULL) ^ (b >> 29);
  }
  return fmt::format("chain:{:016x}{:016x}", a, b);
}

std::string ReferenceAnswers::key(const Call& call, const std::vector<std::string>& keys) const {
  return std::holds_alternative<DecodeCall>(call) ? keys.back() : request_to_json(call).dump();
}

bool ReferenceAnswers::remember_first(const Call& call, const std::vector<std::string>& keys, const Answer& got) {
  const std::string key = this->key(call, keys);
  std::lock_guard lock(mutex_);
  if (pending_.count(key) > 0) return false;  // a copy is answering it: compared with that
  return answers_.emplace(key, got).second;
}

void ReferenceAnswers::ask(const std::vector<Call>& calls, const std::vector<std::string>& keys) {
  struct Slot {  // one of kAtOnce, held while the copy answers
    std::counting_semaphore<kAtOnce>& at_once;
    explicit Slot(std::counting_semaphore<kAtOnce>& s) : at_once(s) { at_once.acquire(); }
    ~Slot() { at_once.release(); }
  } slot(at_once_);
  const SubjectPtr fresh = start();
  std::vector<Answer> got;
  got.reserve(calls.size());
  for (const Call& call : calls) got.push_back(fresh->perform(call));
  std::lock_guard lock(mutex_);
  for (std::size_t k = 0; k < keys.size(); ++k) answers_.emplace(keys[k], std::move(got[k]));
}

void ReferenceAnswers::prefetch(const std::vector<Call>& script) {
  // The jobs: every request after the first, and each decode chain (its
  // session's decodes between resets, one copy for all of them), keyed as
  // answer() looks them up.
  using Job = std::pair<std::vector<Call>, std::vector<std::string>>;
  std::vector<Job> jobs;
  std::map<std::string, Job> chains;
  auto close_chain = [&](const std::string& session) {
    auto it = chains.find(session);
    if (it == chains.end()) return;
    jobs.push_back(std::move(it->second));
    chains.erase(it);
  };
  std::set<std::string> first;  // the first request's key: its answer is the scripted copy's
  for (std::size_t i = 0; i < script.size(); ++i) {
    const Call& call = script[i];
    if (const auto* reset = std::get_if<ResetCall>(&call)) {
      // A chain opens with the reset that began its session: a fresh copy
      // replays it (a subject may need it to start a session, and it may
      // carry the cache's capacity).
      close_chain(reset->session);
      chains[reset->session] = {{call}, {chained_key(std::string(), call)}};
    } else if (const auto* decode = std::get_if<DecodeCall>(&call)) {
      auto& [calls, keys] = chains[decode->session];
      keys.push_back(chained_key(keys.empty() ? std::string() : keys.back(), call));
      calls.push_back(call);
      if (i == 0) first.insert(keys.back());
    } else if (i == 0) {
      first.insert(request_to_json(call).dump());
    } else {
      jobs.push_back({{call}, {request_to_json(call).dump()}});
    }
  }
  while (!chains.empty()) close_chain(chains.begin()->first);
  // A chain of a reset alone asks nothing.
  std::erase_if(jobs, [](const Job& job) {
    return job.first.size() == 1 && std::holds_alternative<ResetCall>(job.first.front());
  });

  std::lock_guard lock(mutex_);
  for (auto& [calls, keys] : jobs) {
    // Only where some answer is neither known, nor being asked, nor the first request's.
    const bool needed = std::any_of(keys.begin(), keys.end(), [&](const std::string& key) {
      return answers_.count(key) == 0 && pending_.count(key) == 0 && first.count(key) == 0;
    });
    if (!needed) continue;
    std::shared_future<void> asked =
        std::async(ahead_ ? std::launch::async : std::launch::deferred,
                   [this, calls = std::move(calls), keys] { ask(calls, keys); })
            .share();
    for (const std::string& key : keys) pending_.emplace(key, asked);
    if (ahead_) asked_.push_back(asked);  // a deferred one runs only if answer() needs it
  }
}

const Answer& ReferenceAnswers::answer(const Call& call, const std::vector<Call>& chain,
                                       const std::vector<std::string>& keys) {
  const bool decoding = std::holds_alternative<DecodeCall>(call);
  const std::string key = this->key(call, keys);
  std::shared_future<void> asked;
  {
    std::lock_guard lock(mutex_);
    if (auto found = answers_.find(key); found != answers_.end()) return found->second;
    if (auto it = pending_.find(key); it != pending_.end()) asked = it->second;
  }
  if (asked.valid()) {
    asked.get();  // the copy's failure, if it failed, is this request's
    std::lock_guard lock(mutex_);
    if (auto found = answers_.find(key); found != answers_.end()) return found->second;
  }
  if (!decoding) {  // not asked ahead: a copy now
    ask({call}, {key});
    std::lock_guard lock(mutex_);
    return answers_.at(key);
  }
  // A chain not asked ahead: the copy that answered it without its last
  // decode goes on with it, so a session of hundreds of decodes costs one
  // replay, not one per token.
  SubjectPtr copy;
  if (chain.size() >= 2) {
    std::lock_guard lock(mutex_);
    if (auto live = live_.find(keys[chain.size() - 2]); live != live_.end()) {
      copy = std::move(live->second);
      live_.erase(live);
    }
  }
  std::vector<Answer> got;
  std::size_t from = chain.size() - 1;
  if (!copy) {  // one fresh copy answers the whole chain; every prefix is remembered
    copy = start();
    from = 0;
  }
  for (std::size_t k = from; k < chain.size(); ++k) got.push_back(copy->perform(chain[k]));
  std::lock_guard lock(mutex_);
  for (std::size_t k = from; k < chain.size(); ++k) answers_.emplace(keys[k], std::move(got[k - from]));
  constexpr std::size_t kLiveCopies = 4;  // chains a cell keeps going at once
  if (live_.size() >= kLiveCopies) live_.clear();
  live_[key] = std::move(copy);
  return answers_.at(key);
}

void HistoryRun::answer(const Call& call) {
  const std::size_t index = shown_.size();
  shown_.push_back(describe(call));
  const Answer got = scripted_.perform(call);
  if (const auto* reset = std::get_if<ResetCall>(&call)) {
    chains_[reset->session] = {call};  // the session's chain opens with it (as prefetch keys it)
    chain_keys_[reset->session] = {chained_key(std::string(), call)};
    return;
  }
  static const std::vector<Call> kNoChain;
  static const std::vector<std::string> kNoKeys;
  const std::vector<Call>* chain_of = &kNoChain;
  const std::vector<std::string>* keys_of = &kNoKeys;
  if (const auto* decode = std::get_if<DecodeCall>(&call)) {
    auto& keys = chain_keys_[decode->session];
    keys.push_back(chained_key(keys.empty() ? std::string() : keys.back(), call));
    chains_[decode->session].push_back(call);
    chain_of = &chains_[decode->session];
    keys_of = &keys;
  }
  const std::vector<Call>& chain = *chain_of;
  // The scripted copy's first answer is a fresh copy's: it is the fresh
  // answer to that request where none is known yet (no copy made for it).
  if (index == 0 && reference_.remember_first(call, *keys_of, got)) first_was_own_ = true;
  const Answer& want = reference_.answer(call, chain, *keys_of);
  if (std::holds_alternative<Refused>(got) && std::holds_alternative<Refused>(want)) {
    if (first_refusal_.empty()) first_refusal_ = std::get<Refused>(got).reason;
    return;
  }
  ++answered_;
  Difference d = difference(got, want, call);
  const std::size_t decoded = static_cast<std::size_t>(
      std::count_if(chain.begin(), chain.end(), [](const Call& c) { return std::holds_alternative<DecodeCall>(c); }));
  const Bound bound = same_request_bound(call, want, decoded);
  const double limit = model_.value(bound);
  const double ratio = limit > 0 ? d.error / limit : (d.error > 0 ? kInfinity : 0);
  if (worst_ && !(ratio > worst_ratio_)) return;
  worst_ratio_ = ratio;
  Check check;
  check.name = std::string(kCheck);
  check.error = d.error;
  check.bound = bound;
  check.where = std::move(d.where);
  check.where.label = fmt::format("request {}: {}", index + 1, shown_.back());
  if (const auto* rotate = std::get_if<RotateCall>(&call); rotate && check.where.row) {
    const Positions& at = rotate->axes.empty() ? rotate->positions : rotate->axes.front();
    if (static_cast<size_t>(*check.where.row) < at.size()) check.where.position = at[static_cast<size_t>(*check.where.row)];
  }
  if (const auto* encode = std::get_if<EncodeCall>(&call); encode && check.where.row) {
    check.where.position = encode->positions[static_cast<size_t>(*check.where.row)];
  }
  if (const auto* decode = std::get_if<DecodeCall>(&call)) check.where.position = decode->position;
  check.observed = std::move(d.observed);
  check.expected = std::move(d.expected);
  std::string before;
  const std::size_t from = index > kShownRequests ? index - kShownRequests : 0;
  for (std::size_t k = from; k < index; ++k) before += fmt::format("{}{}. {}", before.empty() ? "" : "; ", k + 1, shown_[k]);
  check.note = index == 0 ? (first_was_own_ ? "the first request of a fresh copy, before any other: nothing it could "
                                              "depend on (its answer is the fresh one for this request from now on)"
                                            : "the first request of a fresh copy against another fresh copy's answer")
                          : fmt::format("after {}{}: the answer against a freshly started copy's{}",
                                        from > 0 ? "… " : "", before,
                                        decoded > 1 ? fmt::format(" (which decoded the session's {} tokens since "
                                                                  "its reset)",
                                                                  decoded)
                                                         : std::string());
  worst_ = std::move(check);
}

Measurement HistoryRun::measurement() const {
  if (!worst_) {
    throw Refusal(first_refusal_.empty() ? "the script held nothing to compare (resets only)"
                                         : "the subject refused every request of the script: " + first_refusal_);
  }
  return {{*worst_}, fmt::format("{} request(s) answered; {} fresh cop{} started in this cell so far", answered_,
                                 reference_.started(), reference_.started() == 1 ? "y" : "ies")};
}

}  // namespace pecheck::history

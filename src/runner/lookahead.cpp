#include "runner/lookahead.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "pecheck/core/op_table.h"
#include "runner/preview_recorder.h"
#include "runner/request_key.h"

namespace pecheck {

namespace {

// RapidCheck's sizeFor (src/detail/Testing.cpp): sizes spread evenly over
// [0, maxSize] across the successes, the largest always reached.
int spread_size(int cases, int max_size, int successes) {
  const int sizes = max_size + 1;
  const int regular = (cases / sizes) * sizes;
  if (successes < regular) return successes % sizes;
  const int rest = cases - regular;
  if (rest == 1) return 0;
  return ((successes % sizes) * max_size) / (rest - 1);
}

// What a previewed case is measured with: the recorder and the cell's error
// model. A subject watched besides it (history_independence's fresh copies)
// asks requests the recorder cannot learn: the case is stateful.
class RecorderSink final : public CaseSink {
 public:
  RecorderSink(Subject& recorder, const BoundModel& model) : recorder_(recorder), model_(model) {}
  Subject& subject() override { return recorder_; }
  const BoundModel& model() const override { return model_; }
  Subject& watched(Subject&) override { throw PreviewRecorder::Stateful{}; }

 private:
  Subject& recorder_;
  const BoundModel& model_;
};

// A Shrinkable whose value is known already (RapidCheck's Shrinkable concept:
// value() and shrinks()); it shrinks as the one it was drawn as.
struct KnownValue {
  DrawnCasePtr drawn;
  DrawnPtr value() const { return drawn->input; }
  rc::Seq<rc::Shrinkable<DrawnPtr>> shrinks() const { return drawn->shrinkable.shrinks(); }
};

}  // namespace

rc::Gen<DrawnPtr> reusing_previews(rc::Gen<DrawnPtr> inputs, std::function<Lookahead*()> lookahead, int known_as) {
  return rc::Gen<DrawnPtr>([inputs = std::move(inputs), lookahead = std::move(lookahead), known_as](
                               const rc::Random& random, int size) {
    Lookahead* ahead = lookahead();
    if (ahead == nullptr || !ahead->looking_ahead()) return inputs(random, size);
    const int as = known_as >= 0 ? known_as : size;
    DrawnCasePtr drawn = ahead->previewed(random, as);
    if (!drawn) {
      drawn = std::make_shared<const DrawnCase>(inputs(random, size));
      ahead->drawn_by_search(random, as, drawn);
    }
    return rc::makeShrinkable<KnownValue>(std::move(drawn));
  });
}

Lookahead::Lookahead(Subject& inner, BatchingSubject& batching, const BoundModel& model, SearchShape search,
                     BatchLimits limits)
    : inner_(inner), batching_(batching), model_(model), search_(search), limits_(limits), mirror_(search.seed) {
  limits_.max_cases = std::max(limits_.max_cases, 1);
}

Lookahead::~Lookahead() { settle(); }

int Lookahead::size_for(int successes) const { return spread_size(search_.cases, search_.max_size, successes); }

void Lookahead::begin_search_case(const rc::Random& random, int size) {
  current_.reset();
  if (!enabled_) return;
  // The search splits its generator once per case; a draw we did not predict
  // (a reproduce string, another RapidCheck) turns the look-ahead off.
  const rc::Random expected = mirror_.split();
  const int expected_size = size_for(successes_) + recent_discards_ / 10;
  if (!(expected == random) || expected_size != size) {
    enabled_ = false;
    settle();
    answers_.clear();
    previews_.clear();
    return;
  }
  ++index_;
  previews_.erase(previews_.begin(), previews_.lower_bound(index_));
  current_ = Drawn{random, search_.fixed_size ? search_.max_size : size, index_};
  current_served_ = 0;
  launch_ahead();
}

void Lookahead::stop() {
  enabled_ = false;
  settle();
  answers_.clear();
  previews_.clear();
}

void Lookahead::end_search_case(bool success) {
  if (!current_) return;
  current_.reset();
  last_discarded_ = !success;
  if (success) {
    ++successes_;
    recent_discards_ = 0;
  } else {
    ++recent_discards_;
    ++discards_;
  }
}

DrawnCasePtr Lookahead::previewed(const rc::Random& random, int size) const {
  if (!current_) return nullptr;
  const auto it = previews_.find(index_);
  if (it == previews_.end() || !it->second.drawn_at(random, size)) return nullptr;
  return it->second.drawn;
}

void Lookahead::drawn_by_search(const rc::Random& random, int size, DrawnCasePtr drawn) {
  if (!current_ || !current_->drawn_at(random, size)) return;
  current_->drawn = drawn;
  previews_.insert_or_assign(index_, *current_);
}

void Lookahead::draw(std::vector<Drawn>& cases) {
  for (Drawn& c : cases) {
    if (c.drawn) continue;
    const auto it = previews_.find(c.index);
    if (it != previews_.end() && it->second.drawn_at(c.random, c.size)) {
      c.drawn = it->second.drawn;
      continue;
    }
    try {
      c.drawn = std::make_shared<const DrawnCase>(preview_(c.random, c.size));
    } catch (...) {
      continue;  // the generator gave up on this case: it asks nothing
    }
    previews_.insert_or_assign(c.index, c);
  }
}

void Lookahead::settle() {
  while (!in_flight_.empty()) {
    try {
      land();
    } catch (...) {
      // The subject broke answering it: it says so again at its next request.
    }
  }
}

std::vector<Lookahead::Drawn> Lookahead::predict(int from, int count) const {
  std::vector<Drawn> cases;
  if (count <= 0) return cases;
  cases.reserve(static_cast<std::size_t>(count));
  // RapidCheck's search (src/detail/Testing.cpp, searchProperty): case j is
  // drawn while successes < cases, at sizeFor(successes) + recent discards / 10,
  // and the search gives up once the discards exceed cases × max_discard_ratio.
  const long long max_discards = static_cast<long long>(search_.cases) * search_.max_discard_ratio;
  int successes = successes_, recent = recent_discards_;
  long long discards = discards_;
  rc::Random ahead = mirror_;  // the next split gives case index_ + 1
  for (int j = 0; j < from + count; ++j) {
    if (j > 0) {
      // The state after case j − 1, its outcome guessed (the current case's too).
      if (last_discarded_) {
        ++recent;
        if (++discards > max_discards) break;
      } else {
        recent = 0;
        if (++successes >= search_.cases) break;
      }
    }
    if (j == 0) {
      if (from == 0) cases.push_back(*current_);
      continue;
    }
    const rc::Random random = ahead.split();
    if (j < from) continue;
    cases.push_back({random, search_.fixed_size ? search_.max_size : size_for(successes) + recent / 10, index_ + j});
  }
  return cases;
}

Lookahead::Round Lookahead::ask(const std::vector<Drawn>& cases, const std::vector<Answered>& answered,
                                const std::vector<std::size_t>& asking) const {
  Round round;
  for (std::size_t i : asking) {
    if (!cases[i].drawn) continue;
    PreviewRecorder recorder(inner_.info(), answered[i]);
    RecorderSink sink(recorder, model_);
    try {
      cases[i].drawn->input->measure(sink);
    } catch (PreviewRecorder::Pending& p) {
      round.calls.push_back(std::move(p.call));
      round.hashes.push_back(p.hash);
      round.owners.push_back(i);
    } catch (const PreviewRecorder::Stateful&) {
      round.stateful = true;  // a property that decodes: its requests depend on the subject's history
      return round;
    } catch (...) {
      // The measurement ended (refused, or threw): this case asks no more.
    }
  }
  return round;
}

std::int64_t Lookahead::numbers_cap() const {
  if (numbers_per_second_ <= 0) return limits_.first_numbers();
  return static_cast<std::int64_t>(limits_.share * limits_.timeout_seconds * numbers_per_second_);
}

void Lookahead::fit(std::vector<Drawn>& cases, Round& first) const {
  if (first.stateful || cases.size() <= 1) return;
  // Each case's share of the line: its first requests (rounds after the first
  // go in lines of their own, each no larger than a case's first round
  // times the cases kept, as a rule).
  std::vector<std::int64_t> numbers(cases.size(), 0);
  for (std::size_t k = 0; k < first.calls.size(); ++k) numbers[first.owners[k]] += numbers_of(first.calls[k]);
  const std::int64_t cap = numbers_cap();
  std::size_t keep = 1;
  for (std::int64_t total = numbers[0]; keep < cases.size() && total + numbers[keep] <= cap; ++keep) {
    total += numbers[keep];
  }
  if (keep == cases.size()) return;
  cases.resize(keep);
  std::size_t kept_calls = 0;
  while (kept_calls < first.owners.size() && first.owners[kept_calls] < keep) ++kept_calls;
  first.calls.resize(kept_calls);
  first.hashes.resize(kept_calls);
  first.owners.resize(kept_calls);
}

Lookahead::Fetched Lookahead::fetch(std::vector<Drawn> cases, int rounds) {
  draw(cases);
  std::vector<std::size_t> all(cases.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  Round first = ask(cases, std::vector<Answered>(cases.size()), all);
  fit(cases, first);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Answer> got;
  if (!first.stateful && !first.calls.empty()) got = inner_.perform_batch(first.calls);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return finish(std::move(cases), rounds, std::move(first), std::move(got), seconds);
}

Lookahead::Fetched Lookahead::finish(std::vector<Drawn> cases, int rounds, Round round, std::vector<Answer> got,
                                     double seconds) {
  Fetched out;
  out.cases = static_cast<int>(cases.size());
  out.seconds = seconds;
  std::vector<Answered> answered(cases.size());
  for (int r = 0; r < rounds; ++r) {
    if (round.stateful) {
      out.stateful = true;
      return out;
    }
    if (round.calls.empty()) break;
    if (r > 0) {
      const auto start = std::chrono::steady_clock::now();
      got = inner_.perform_batch(round.calls);
      out.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    for (std::size_t k = 0; k < got.size(); ++k) {
      out.numbers += numbers_of(round.calls[k]);
      auto asked = std::make_shared<const Asked>(Asked{std::move(round.calls[k]), round.hashes[k]});
      out.answers.emplace_back(asked, got[k]);
      answered[round.owners[k]].emplace_back(std::move(asked), std::move(got[k]));
    }
    if (r + 1 < rounds) round = ask(cases, answered, round.owners);
  }
  for (const Answered& a : answered) out.requests_per_case = std::max(out.requests_per_case, static_cast<int>(a.size()));
  return out;
}

void Lookahead::absorb(Fetched fetched) {
  if (fetched.stateful) {
    enabled_ = false;
    return;
  }
  for (auto& [asked, answer] : fetched.answers) answers_[asked->hash].emplace_back(asked, std::move(answer));
  // Once a batch's cases have shown how many requests a case makes, later
  // batches stop there instead of measuring every case to its end only to
  // learn it asks nothing more; a case that does ask more misses, and the
  // batch that miss starts measures to the end again.
  if (requests_per_case_ == 0) requests_per_case_ = fetched.requests_per_case;
  // Grow while the batches stay well inside the timeout a request has; the
  // numbers the next line may carry follow the rate this one showed.
  if (fetched.seconds > 0 && fetched.numbers > 0) numbers_per_second_ = fetched.numbers / fetched.seconds;
  const double per_case = fetched.cases > 0 ? fetched.seconds / fetched.cases : 0;
  int next = std::min({2 * next_cases_, limits_.max_cases, window_cap()});
  if (per_case > 0) {
    const double fits = limits_.share * limits_.timeout_seconds / per_case;
    if (fits < next) next = std::max(1, static_cast<int>(std::floor(fits)));
  }
  next_cases_ = next;
}

void Lookahead::launch_ahead() {
  // Once a batch has been fetched for the search (the first is fetched when
  // the first case asks), the subject always has the next batch waiting:
  // up to kDepth batches in flight, each sent as the one before is collected.
  if (!enabled_ || !preview_ || predicted_until_ <= index_) return;
  while (in_flight_.size() < kDepth) {
    std::vector<Drawn> cases = predict(predicted_until_ - index_, next_cases_);
    if (cases.empty()) return;
    draw(cases);
    std::vector<std::size_t> all(cases.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    InFlight next;
    next.first = ask(cases, std::vector<Answered>(cases.size()), all);
    fit(cases, next.first);
    predicted_until_ += static_cast<int>(cases.size());
    next.rounds = requests_per_case_ > 0 ? requests_per_case_ : kMaxRounds;
    next.sent = std::chrono::steady_clock::now();
    if (!next.first.stateful && !next.first.calls.empty()) next.ticket = batching_.post_batch(next.first.calls);
    next.cases = std::move(cases);
    in_flight_.push_back(std::move(next));
  }
}

void Lookahead::land() {
  InFlight batch = std::move(in_flight_.front());
  in_flight_.pop_front();
  std::vector<Answer> got;
  if (!batch.first.stateful && !batch.first.calls.empty()) got = batching_.collect_batch(batch.ticket);
  // The subject's time is at most the time since the batch went out.
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch.sent).count();
  absorb(finish(std::move(batch.cases), batch.rounds, std::move(batch.first), std::move(got), seconds));
}

std::optional<Answer> Lookahead::take(const Call& call, std::size_t hash) {
  const auto it = answers_.find(hash);
  if (it == answers_.end()) return std::nullopt;
  auto& queue = it->second;
  const auto match =
      std::find_if(queue.begin(), queue.end(), [&](const auto& a) { return same_request(a.first->call, call); });
  if (match == queue.end()) return std::nullopt;
  Answer answer = std::move(match->second);
  queue.erase(match);
  if (queue.empty()) answers_.erase(it);
  if (current_) ++current_served_;
  ++needed_;
  return answer;
}

void Lookahead::drop_unserved() {
  long long dropped = 0;
  for (const auto& [hash, queue] : answers_) dropped += static_cast<long long>(queue.size());
  answers_.clear();
  if (dropped == 0) return;
  // What a wrong guess cost is bounded: start again from one case, and stop
  // looking ahead for good once the guesses have cost more than a quarter
  // of the requests the cell needed.
  dropped_ += dropped;
  ++misses_;
  next_cases_ = 1;
  if (dropped_ > needed_ / 4 + kDropSlack) enabled_ = false;
}

int Lookahead::window_cap() const {
  // A miss drops about what was sent ahead (two batches): kept to an eighth
  // of the requests a cell makes between misses, so that wrong guesses cost
  // a small share however often they come.
  if (misses_ == 0) return limits_.max_cases;
  return static_cast<int>(std::clamp<long long>(needed_ / misses_ / 8, 1, limits_.max_cases));
}

Subject& Lookahead::direct() {
  settle();
  return inner_;
}

Answer Lookahead::serve(const Call& call) {
  const std::size_t hash = hash_of(call);
  if (auto answer = take(call, hash)) return std::move(*answer);
  while (!in_flight_.empty()) {
    land();  // a subject failure in it is this request's
    if (auto answer = take(call, hash)) {
      launch_ahead();
      return std::move(*answer);
    }
  }
  if (enabled_ && current_ && preview_) drop_unserved();  // a miss: what was predicted is not what is drawn
  if (enabled_ && current_ && preview_) {
    // A case that got answers and still asks made more requests than the
    // batch's rounds covered: measure to the end again.
    if (current_served_ > 0) requests_per_case_ = 0;
    Fetched fetched = fetch(predict(0, next_cases_), requests_per_case_ > 0 ? requests_per_case_ : kMaxRounds);
    predicted_until_ = index_ + fetched.cases;  // the cases fit() kept
    absorb(std::move(fetched));
    if (auto answer = take(call, hash)) return std::move(*answer);
  }
  ++needed_;
  return inner_.perform(call);
}

// A stateful op (decode, reset: the op table's) is never batched, and a
// property that asks one is not looked ahead for at all. In-process ops
// (logits, combine) are never sent over the protocol, so never batched either.
Answer Lookahead::perform(const Call& call) {
  const OpRow& op = op_row(op_of(call));
  if (op.stateful) {
    Subject& subject = direct();
    enabled_ = false;
    answers_.clear();
    return subject.perform(call);
  }
  if (!op.on_wire) {
    return direct().perform(call);
  }
  return serve(call);
}

}  // namespace pecheck

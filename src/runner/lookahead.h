#pragma once
// Look-ahead batching (SUBJECT-PROTOCOL.md v2 `batch`). For a subject that
// takes batches, the runner works out the cases RapidCheck's search is about
// to draw (the same Random splits and sizes), measures each against a
// recorder to learn its requests (preview_recorder.h), and sends them in one
// `batch` line. The measurement's real requests are then served from those
// answers: an answer is served only for a request byte-identical to the one
// it answered, and once, so verdicts, witnesses and reports are those of one
// request per case (same seed, same report). A misprediction (a refused case
// shifts the sizes that follow) costs only another batch; shrinking and
// anything outside the search talks to the subject one request at a time.
//
// The property only draws and measures (PropertyImpl::draw, DrawnInput): the
// look-ahead draws each case it previews once, as the search would at the
// same (random, size), measures that very input against the recorder as
// often as its rounds need, and the search takes it rather than drawing it
// again (reusing_previews), shrinking it as the generator's Shrinkable would.
//
// A case's size depends on whether the cases before it were refused
// (RapidCheck adds one to the size per ten recent discards and does not
// advance the success count), so the prediction guesses each case's outcome
// as the last judged case's: a subject that refuses everything gets exactly
// the requests it would get one case at a time. A wrong guess drops what was
// fetched after it; the batch size then starts again from one case, doubles
// while batches are used, and stays under an eighth of the requests made
// between misses so far; a cell whose guesses keep failing (the dropped
// answers exceed a quarter of the requests it made, plus kDropSlack) stops
// looking ahead — so refusals never cost the subject much more than one
// request per case (docs/reports-and-merge.md, "Refusals and look-ahead").
//
// While the search judges one batch's cases, the next batch is already sent
// (BatchingSubject::post_batch): the subject works on it meanwhile, so its
// work and pecheck's overlap on two cores.
#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pecheck/property/property.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/subject.h"
#include "runner/preview_recorder.h"
#include "runner/rapidcheck_glue.h"
#include "runner/request_key.h"

namespace pecheck {

// A case drawn once: its input, and the shrinks of the Shrinkable it came from.
struct DrawnCase {
  explicit DrawnCase(rc::Shrinkable<DrawnPtr> drawn) : shrinkable(std::move(drawn)), input(shrinkable.value()) {}
  rc::Shrinkable<DrawnPtr> shrinkable;
  DrawnPtr input;
};
using DrawnCasePtr = std::shared_ptr<const DrawnCase>;

// The search RapidCheck runs, as far as the look-ahead needs it.
struct SearchShape {
  std::uint64_t seed = 0;
  int cases = 100;          // maxSuccess
  int max_size = 100;
  bool fixed_size = false;  // every case drawn at max_size (rc::gen::resize)
  int max_discard_ratio = default_max_discard_ratio();  // the search gives up past cases × this
};

// How large batches may grow: up to `max_cases` cases, and no larger than a
// `share` of the subject's per-request timeout takes at the observed speed
// (a batch must be answered within that timeout, as one request must).
// Speed is measured in numbers (request_key.h numbers_of: the arrays sent and
// the answer expected) per second: a batch line carries at most
// share × timeout × the rate the subject showed on the last batch, and the
// first, before any rate is known, at most `first_numbers` — what a subject of
// `assumed_rate` numbers per second answers in a `share` of the timeout.
// A batch holds at least one case whatever its size (one request per case is
// what no batching sends).
struct BatchLimits {
  int max_cases = 256;
  double timeout_seconds = 10;
  double share = 0.05;
  // A slow subject: NumPy attention over 4,097 keys at 4 query heads
  // (tests/subjects/gqa_window_4096.py) answers a request of 49,152 numbers
  // in about 1.3 s on a loaded 2-core machine, some 38,000 numbers/s. At 40,000
  // and the defaults the first line carries 20,000 numbers: that subject's
  // cases go one to a line, pe.bounded's (tens to hundreds) four.
  double assumed_rate = 40'000;
  std::int64_t first_numbers() const {
    return static_cast<std::int64_t>(assumed_rate * share * timeout_seconds);
  }
};

class Lookahead final : public Subject {
 public:
  // Draws the case the property's generator draws at (random, size), to be
  // measured against a recorder with the cell's error model; whatever that
  // throws is ignored.
  using Preview = std::function<rc::Shrinkable<DrawnPtr>(const rc::Random& random, int size)>;

  Lookahead(Subject& inner, BatchingSubject& batching, const BoundModel& model, SearchShape search,
            BatchLimits limits);
  ~Lookahead() override;

  // The cell's preview of the search's cases; without one every request goes straight through.
  void set_preview(Preview preview) { preview_ = std::move(preview); }
  // The search is about to evaluate the case drawn at (random, size).
  void begin_search_case(const rc::Random& random, int size);
  // ... and that case was judged: a success, or a discard (refused, not checkable).
  void end_search_case(bool success);
  // The case being evaluated as the look-ahead drew it, if it drew that very
  // case (the search then need not draw it again), else null.
  DrawnCasePtr previewed(const rc::Random& random, int size) const;
  // ... and the case the search drew itself, where the look-ahead had not.
  void drawn_by_search(const rc::Random& random, int size, DrawnCasePtr drawn);
  // Whether the case being evaluated is one the look-ahead follows.
  bool looking_ahead() const { return enabled_ && preview_ && current_.has_value(); }
  // Waits for the batch in flight, if any: the subject is the caller's alone
  // again (a failure in it shows at the subject's next request).
  void settle();
  // The cell stops early (refusals, the time budget, a graceful stop): the
  // batch in flight is waited for and nothing more is sent ahead.
  void stop();

  const SubjectInfo& info() const override { return inner_.info(); }
  Answer perform(const Call& call) override;
  std::string log_tail() const override { return inner_.log_tail(); }

 private:
  struct Drawn {
    rc::Random random;
    int size;
    int index = 0;  // the search case it is
    DrawnCasePtr drawn = {};  // the case itself, once drawn
    bool drawn_at(const rc::Random& r, int s) const { return size == s && random == r; }
  };
  // What one batch's rounds obtained.
  struct Fetched {
    std::vector<std::pair<AskedPtr, Answer>> answers;  // in the order asked
    int cases = 0;
    int requests_per_case = 0;  // the most any of its cases asked (when its rounds were not capped)
    double seconds = 0;         // the subject's time
    std::int64_t numbers = 0;   // what its requests carried with their answers (numbers_of)
    bool stateful = false;      // a case decodes: stop looking ahead
  };

  // Search cases [index_ + from, index_ + from + count), each case's outcome
  // guessed as the last judged case's (a success advances the sizes and
  // resets the discard count; ten discards add one to the size), cut where
  // the search would end (enough successes, or too many discards).
  std::vector<Drawn> predict(int from, int count) const;
  // One round: the cases at `asking` measured up to their next unanswered request.
  struct Round {
    std::vector<Call> calls;
    std::vector<std::size_t> hashes;  // hash_of each call
    std::vector<std::size_t> owners;  // the case each call is for
    bool stateful = false;            // a case decodes: stop looking ahead
  };
  Round ask(const std::vector<Drawn>& cases, const std::vector<Answered>& answered,
            const std::vector<std::size_t>& asking) const;
  // Draws each case (once: a case drawn before is taken from `previews_`) and keeps it for the search.
  void draw(std::vector<Drawn>& cases);
  // Cuts `cases` (and their requests in `first`) after the longest prefix
  // whose first requests carry at most numbers_cap() numbers, one case at least.
  void fit(std::vector<Drawn>& cases, Round& first) const;
  // The most numbers one batch line may carry (BatchLimits).
  std::int64_t numbers_cap() const;
  // Rounds: every case measured up to its next unanswered request, those
  // requests sent in one batch, until no case asks for more (at most `rounds`).
  Fetched fetch(std::vector<Drawn> cases, int rounds);
  // The rounds after the first, whose answers (`got`) are in hand.
  Fetched finish(std::vector<Drawn> cases, int rounds, Round first, std::vector<Answer> got, double seconds);
  void absorb(Fetched fetched);
  // Sends batches ahead, so the subject always has the next one waiting.
  void launch_ahead();
  // The batch sent ahead: its cases, its first round and when it went.
  struct InFlight {
    BatchingSubject::Ticket ticket = 0;
    std::vector<Drawn> cases;
    Round first;
    int rounds = 0;
    std::chrono::steady_clock::time_point sent;
  };
  // Collects the oldest batch sent ahead and runs its later rounds.
  void land();
  // The answer to `call`: from a batch if one was obtained for this very
  // request, else a new batch (during the search), else the subject itself.
  Answer serve(const Call& call);
  std::optional<Answer> take(const Call& call, std::size_t hash);
  Subject& direct();  // the subject, with no batch in flight
  int size_for(int successes) const;

  Subject& inner_;
  BatchingSubject& batching_;
  const BoundModel& model_;  // what a previewed case is measured with
  SearchShape search_;
  BatchLimits limits_;
  Preview preview_;
  bool enabled_ = true;  // off for good once the search is not what we mirror, or the property decodes

  rc::Random mirror_;                 // the search's generator, after the splits so far
  int successes_ = 0, recent_discards_ = 0, discards_ = 0;
  bool last_discarded_ = false;       // the last judged case was discarded: the guess for the next ones
  int index_ = -1;                    // the search case being evaluated (or last evaluated)
  std::optional<Drawn> current_;      // ... while it is being evaluated
  int current_served_ = 0;            // answers it was served from a batch
  int predicted_until_ = 0;           // search cases below this index were sent ahead
  // Cases in the next batch (grows while batches are quick). Four at first,
  // cut to what BatchLimits::first_numbers allows: small cases go four to the
  // first line (one made refusing subjects cost four times the requests,
  // test_lookahead), while four cases of 4,097 tokens, which took a correct
  // subject past its 10 s timeout in one line (issue 36), go one at a time
  // until the subject's rate is known.
  int next_cases_ = 4;
  double numbers_per_second_ = 0;     // the rate the last batch showed; 0: not measured yet
  static constexpr int kMaxRounds = 64;  // requests one case may make in a batch's rounds
  int requests_per_case_ = 0;         // the most any case of the last full batch made; 0: not known
  // What batching cost: answers served from batches and requests that went
  // straight to the subject (what one request per case would have asked),
  // and answers fetched for cases that were then not drawn (a wrong guess).
  long long needed_ = 0, dropped_ = 0, misses_ = 0;
  static constexpr long long kDropSlack = 16;  // dropped answers allowed before the quarter applies
  void drop_unserved();               // a miss: the answers not yet served are the guesses' cost
  int window_cap() const;             // the largest batch while guesses miss now and then

  // Answers not yet served, by their request's hash (a request matches only one the same bit for bit).
  std::unordered_map<std::size_t, std::deque<std::pair<AskedPtr, Answer>>> answers_;
  std::map<int, Drawn> previews_;     // search case index → the case drawn for it, from index_ on
  std::deque<InFlight> in_flight_;    // batches sent ahead, oldest first
  static constexpr std::size_t kDepth = 2;
};

// `inputs`, except that while `lookahead()` looks ahead for the case being
// drawn, a case it has drawn already is taken from it, and one it has not is
// handed to it once drawn. `known_as`: the size the look-ahead knows the
// case by (a ladder case is drawn at full size as search case k), or the
// size drawn at when negative.
rc::Gen<DrawnPtr> reusing_previews(rc::Gen<DrawnPtr> inputs, std::function<Lookahead*()> lookahead, int known_as = -1);

}  // namespace pecheck

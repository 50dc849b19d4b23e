#pragma once
// The search both fitters run (identify/rotary*.cpp, identify/encoder.cpp),
// written once. `pecheck identify` asks which convention a subject computes:
// probes at the first two widths it answers, hypotheses read off them and
// ranked by their worst error over the answers, the best named. A failed
// reference check's diagnosis asks which usual mistake it made: the answers
// re-queried around the witness, a defect no hypothesis expresses measured
// directly, then the suspects (each one change to the declared convention)
// ranked the same way and the verdict phrased. An op supplies its probes,
// hypotheses, scores and words (the concepts below); the order of the steps,
// the ranking and the sentences are here.
#include <fmt/format.h>

#include <concepts>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "identify/internal.h"

namespace pecheck::identify::detail {

// The words of the suspect that changes nothing (a diagnosis compares every other with it).
inline constexpr std::string_view kDeclared = "the declared convention";

// The positions of `usual` up to max_position, in order.
Positions positions_up_to(std::initializer_list<Position> usual, Position max_position);

// The positions a diagnosis re-queries: the usual ones and the witness's,
// sorted, at a length that holds them all (and at least the witness's).
struct Around {
  Positions positions;
  Position length = 1;
};
Around around_witness(Positions usual, const Positions& witness, Position seq_len);

// Probes at the first two widths of `widths` the subject answers (`ask`
// returns none for a width it refuses); a width equal to the first answered
// one is not asked again.
template <class Probe, class Ask>
std::vector<Probe> answered_widths(const std::vector<int>& widths, Ask ask) {
  std::vector<Probe> probes;
  for (int d : widths) {
    if (probes.size() == 2) break;
    if (!probes.empty() && probes.front().dim == d) continue;
    if (auto p = ask(d)) probes.push_back(std::move(*p));
  }
  return probes;
}

// The suspects of a diagnosis, each one change to the declared convention,
// kept in the order they are listed (a tie goes to the one listed first).
// Called as with(words, change), change(Hypothesis&) applying the change.
template <class Hypothesis>
class Suspects {
 public:
  using Convention = decltype(Hypothesis::convention);
  explicit Suspects(const Convention& declared) : declared_(declared) {}
  template <class Change>
  void operator()(std::string words, Change change) {
    Hypothesis h;
    h.words = std::move(words);
    h.convention = declared_;
    change(h);
    out_.push_back(std::move(h));
  }
  std::vector<Hypothesis> take() && { return std::move(out_); }

 private:
  const Convention& declared_;
  std::vector<Hypothesis> out_;
};

// The worst ratio of the hypothesis named `words` (infinite when none is).
template <class Hypothesis>
double ratio_of(const std::vector<Ranked<Hypothesis>>& ranked, std::string_view words) {
  double out = std::numeric_limits<double>::infinity();
  for (const auto& r : ranked) {
    if (r.hypothesis.words == words) out = r.score.ratio;
  }
  return out;
}

// "; next best: …", the first hypothesis ranked after the best that another name has ("" if none).
template <class Hypothesis>
std::string runner_up(const std::vector<Ranked<Hypothesis>>& ranked) {
  for (const auto& r : ranked) {
    if (r.hypothesis.words != ranked.front().hypothesis.words) {
      return fmt::format("; next best: {} ({:.3g}× its bound)", r.hypothesis.words, r.score.ratio);
    }
  }
  return {};
}

// What an op's `pecheck identify` supplies. It holds the subject and the
// probes it asked; judged() may ask more (once the first two widths
// answered) and returns every probe the hypotheses are scored over.
template <class S>
concept IdentifySearch = requires(S& s, const S& c, int width, const typename S::Hypothesis& h,
                                  const std::vector<typename S::Probe>& probes,
                                  std::vector<Ranked<typename S::Hypothesis>>& ranked) {
  { c.op() } -> std::convertible_to<std::string>;
  { c.widths() } -> std::same_as<std::vector<int>>;        // the widths to probe, in order of preference
  { c.refused() } -> std::convertible_to<std::string>;     // the convention's words when every width is refused
  { s.ask(width) } -> std::same_as<std::optional<typename S::Probe>>;
  { s.judged(probes) } -> std::same_as<std::vector<typename S::Probe>>;
  { s.hypotheses(probes) } -> std::same_as<std::vector<typename S::Hypothesis>>;
  { c.score(h, probes) } -> std::same_as<Score>;
  { s.refine(ranked, probes) };                            // the best re-judged with what only it can be asked
  { c.params(h) } -> std::same_as<json>;                   // the hello's params.<op> that declare it
  { c.probed(probes) } -> std::convertible_to<std::string>;  // what was probed, in words
};

// pecheck identify for one op: the probes, the hypotheses ranked, the best named.
template <IdentifySearch S>
Identification identify_with(S& search) {
  using Hypothesis = typename S::Hypothesis;
  Identification out;
  out.op = search.op();
  const auto answered = answered_widths<typename S::Probe>(search.widths(), [&](int d) { return search.ask(d); });
  if (answered.empty()) {
    out.convention = search.refused();
    return out;
  }
  const auto probes = search.judged(answered);
  const std::vector<Hypothesis> hypotheses = search.hypotheses(probes);
  auto ranked = rank(hypotheses, [&](const Hypothesis& h) { return search.score(h, probes); });
  search.refine(ranked, probes);
  const auto& best = ranked.front();
  out.ratio = best.score.ratio;
  out.convention = best.hypothesis.words;
  out.fits = best.score.ratio <= 1 && best.hypothesis.declarable;
  if (best.hypothesis.declarable) out.params = search.params(best.hypothesis);
  out.details = fmt::format("{} hypotheses over {}; worst entry of the best {:.3g}× its bound at {}{}",
                            hypotheses.size(), search.probed(probes), best.score.ratio,
                            best.score.where.empty() ? "—" : best.score.where, runner_up(ranked));
  return out;
}

// What an op's diagnosis supplies. It holds the subject, the declared
// convention and the re-queried probes (`probes`, empty when every one was
// refused).
template <class S>
concept DiagnosisSearch = requires(S& s, const typename S::Hypothesis& h, const Ranked<typename S::Hypothesis>& best,
                                   const std::string& probed) {
  { s.probes.empty() } -> std::convertible_to<bool>;
  { s.measured() } -> std::same_as<std::string>;  // a defect no hypothesis expresses ("" for none)
  { s.suspects() } -> std::same_as<std::vector<typename S::Hypothesis>>;
  { s.score(h) } -> std::same_as<Score>;
  { s.declared() } -> std::convertible_to<std::string>;  // the declared convention, in words
  // The verdict when the declared convention ranks first; none to go on as for any other suspect.
  { s.declared_first(best, probed) } -> std::same_as<std::optional<std::string>>;
  { s.explained_tail(h) } -> std::same_as<std::string>;  // added after a suspect that explains everything
  { s.ruled_out() } -> std::convertible_to<std::string>;  // the suspects' kinds, as "no usual suspect" lists them
  { s.unexplained_tail(best) } -> std::same_as<std::string>;  // added after "no usual suspect"
};

// The diagnosis of a failed reference check for one op.
template <DiagnosisSearch S>
std::string diagnose_with(S& search) {
  using Hypothesis = typename S::Hypothesis;
  if (search.probes.empty()) return "no diagnosis: the subject refused every probe";
  // Measured directly, before any hypothesis: a defect no convention expresses (sine and cosine at different
  // frequencies) is named as itself, not as the suspect that comes closest.
  if (std::string mismatch = search.measured(); !mismatch.empty()) return mismatch;
  const auto ranked = rank(search.suspects(), [&](const Hypothesis& h) { return search.score(h); });
  const std::string probed = span_of(search.probes);
  const double declared_ratio = ratio_of(ranked, kDeclared);
  const auto& best = ranked.front();
  if (best.hypothesis.words == kDeclared) {
    if (auto verdict = search.declared_first(best, probed)) return *verdict;
  }
  if (best.score.ratio <= 1) {
    return fmt::format("{} — it explains every re-queried answer ({}) within the error model (worst {:.2g} of its "
                       "bound; the declared {} is off by {:.3g}×){}",
                       best.hypothesis.words, probed, best.score.ratio, search.declared(), declared_ratio,
                       search.explained_tail(best.hypothesis));
  }
  return fmt::format("no usual suspect explains the answers ({}: {}); the closest, {}, is off by {:.3g}× its bound "
                     "at {}{}",
                     probed, search.ruled_out(), best.hypothesis.words, best.score.ratio, best.score.where,
                     search.unexplained_tail(best));
}

}  // namespace pecheck::identify::detail

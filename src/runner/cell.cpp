#include "pecheck/runner/cell.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include "pecheck/core/interrupt.h"
#include "pecheck/core/op_table.h"
#include "pecheck/property/fresh.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/typed_subject.h"
#include "pecheck/runner/subject_maker.h"
#include "pecheck/runner/shard.h"
#include "runner/coverage_probe.h"
#include "runner/lookahead.h"
#include "runner/rapidcheck_glue.h"
#include "runner/refusals.h"

namespace pecheck {

std::uint64_t derive_seed(std::uint64_t seed, std::string_view property, std::string_view subject) {
  // FNV-1a over (seed, property, subject key): stable across platforms,
  // builds and checkout folders (the key drops the folders of paths).
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(seed >> (8 * i)));
  for (char c : property) mix(static_cast<unsigned char>(c));
  mix(0);
  for (char c : subject_key(subject)) mix(static_cast<unsigned char>(c));
  return h;
}

Expect expectation_for(const PropertyInfo& property, std::string_view scheme, const RunOptions& options) {
  if (auto it = options.expectations.find(property.id); it != options.expectations.end()) return it->second;
  return property.expectation(scheme);
}

Expect expectation_for(const PropertyInfo& property, std::string_view scheme, const RunOptions& options,
                       const SubjectInfo& subject) {
  if (auto it = options.expectations.find(property.id); it != options.expectations.end()) return it->second;
  return property.expectation(scheme, subject);
}

SubjectFailureInfo failure_info(const SubjectFailure& f) {
  return {f.what(), f.request, f.received, f.stderr_tail, f.exit_status};
}

namespace {

constexpr const char* kNoReasonGiven = "(the subject gave no reason)";

// A case's shrinks, cut off as soon as `stop()` says so (the run's time
// budget spent, or a graceful stop): the shrink then ends at the smallest
// counterexample found so far. Without the cut every remaining candidate of
// the tree is still drawn and passed vacuously, which for a case of a
// declared width of thousands took minutes past a 90 s budget.
rc::Shrinkable<SearchCase> cut_shrinks(rc::Shrinkable<SearchCase> shrinkable, const std::function<bool()>& stop) {
  return rc::shrinkable::mapShrinks(std::move(shrinkable), [stop](rc::Seq<rc::Shrinkable<SearchCase>>&& shrinks) {
    return rc::seq::map(
        rc::seq::takeWhile(std::move(shrinks), [stop](const rc::Shrinkable<SearchCase>&) { return !stop(); }),
        [stop](rc::Shrinkable<SearchCase>&& child) { return cut_shrinks(std::move(child), stop); });
  });
}

// Whether a bound at a lower precision says anything: below the largest
// error possible for the compared quantity (its ceiling) and below the
// quantity's own scale. A bound as large as the values compared fits any
// wrong answer, so "the error fits bfloat16" would explain nothing.
bool informative(const Bound& bound, double value) {
  if (bound.ceiling && value >= *bound.ceiling) return false;
  double scale = 0;
  for (const BoundTerm& t : bound.terms) scale = std::max(scale, t.scale);
  return scale > 0 && value < scale;
}

// Which lower precision, if any, explains an error the declared one does not:
// the failing check's bound with one stage taken down to float16 or bfloat16,
// where that bound is informative.
std::string precision_hint(const PropertyDef& property, const SubjectInfo& subject, const RunOptions& options,
                           const JudgedCheck& failed) {
  if (failed.check.bound.kind != Bound::Kind::upper || !(failed.check.error > failed.tolerance.bound)) return {};
  for (Stage stage : {Stage::angles, Stage::values, Stage::accumulate}) {
    const bool used = std::any_of(failed.check.bound.terms.begin(), failed.check.bound.terms.end(),
                                  [stage](const BoundTerm& t) { return t.stage == stage && t.work * t.scale > 0; });
    if (!used) continue;
    const BoundModel declared(options.error_model, property.info.id, subject);
    // The finer first: the more specific explanation.
    for (Dtype lower : {Dtype::float16, Dtype::bfloat16}) {
      if (unit_roundoff(lower) <= declared.u(stage)) continue;
      SubjectInfo as_if = subject;
      if (stage == Stage::values) as_if.dtype = lower;
      if (stage == Stage::angles) as_if.compute.angles = lower;
      if (stage == Stage::accumulate) as_if.compute.accumulate = lower;
      const double bound = BoundModel(options.error_model, property.info.id, as_if).value(failed.check.bound);
      if (!informative(failed.check.bound, bound)) continue;
      // Within that precision's rounding as the error model counts it, before
      // its safety factor: an error that needs the whole factor to fit looks
      // like another bug (a wrong convention) that happens to be small.
      if (failed.check.error <= bound / declared.factor()) {
        const char* what = stage == Stage::values ? "values" : stage == Stage::angles ? "angles" : "accumulation";
        return fmt::format("the error fits {} computed in {} (bound {:.3g}), not the declared {} (bound {:.3g}): "
                           "it computes in a lower precision than it declares?",
                           what, name(lower), bound, name(declared.dtype(stage)), failed.tolerance.bound);
      }
    }
  }
  return {};
}

// The look-ahead for a subject that takes batches (process subjects that
// declared "batch": true), unless --batch 1 or the cell replays one case.
// Properties that decode talk to the subject's history and are never looked ahead for.
std::unique_ptr<Lookahead> lookahead_for(const PropertyDef& property, Subject& subject, const BoundModel& model,
                                         const RunOptions& options, SearchShape search) {
  auto* batching = dynamic_cast<BatchingSubject*>(&subject);
  if (batching == nullptr || !subject.info().batch || options.batch <= 1 || !options.reproduce.empty() ||
      op_row(property.info.op).stateful) {
    return nullptr;
  }
  return std::make_unique<Lookahead>(subject, *batching, model, search,
                                     BatchLimits{options.batch, options.subject_timeout});
}

// One cell's state, and what its measurements are given (CaseSink): the
// subject behind the coverage probe (and the look-ahead, when it batches)
// and the error model bound to the claim.
class CellState final : public CaseSink {
 public:
  CellState(const PropertyDef& property, Subject& subject, const RunOptions& options, std::uint64_t seed)
      : property_(property), options_(options), subject_(subject),
        model_(options.error_model, property.info.id, subject.info()),
        lookahead_(lookahead_for(property, subject, model_, options,
                                 SearchShape{seed, options.cases, options.max_size, options.fixed_size})),
        probe_(lookahead_ ? *lookahead_ : subject) {
    probe_.refuse_inside_declared(true);
  }

  Subject& subject() override { return probe_; }
  const BoundModel& model() const override { return model_; }
  Subject& watched(Subject& other) override { return probe_.watch(other); }
  Lookahead* lookahead() { return lookahead_.get(); }

  // The look-ahead's preview: the search's cases, drawn as the search will draw them.
  void preview(Lookahead::Preview preview) {
    if (lookahead_) lookahead_->set_preview(std::move(preview));
  }

  // The cases RapidCheck runs: `inputs` (reusing the cases the look-ahead
  // drew; `known_as`, see reusing_previews), each measured and judged.
  rc::Gen<SearchCase> cases(rc::Gen<DrawnPtr> inputs, int known_as = -1) {
    return rc::gen::map(reusing_previews(std::move(inputs), [this] { return lookahead_.get(); }, known_as),
                        [this](const DrawnPtr& input) { return evaluate(*input); });
  }

  // The shape ladder's search follows: its own look-ahead (the search it
  // mirrors is another); a rung refused or not checkable is redrawn a few
  // times, then passed over (passed_over).
  void begin_ladder(std::uint64_t seed, int cases) {
    if (lookahead_) lookahead_->settle();
    lookahead_ =
        lookahead_for(property_, subject_, model_, options_, SearchShape{seed, cases, std::max(cases - 1, 0), false});
    probe_.forward_to(lookahead_ ? static_cast<Subject&>(*lookahead_) : subject_);
    ladder_ = true;
  }

 private:
  SearchCase evaluate(const DrawnInput& input) {
    SearchCase d = judge_case(input);
    if (lookahead_) lookahead_->end_search_case(is_pass(d));
    return d;
  }

  // The run's time budget is spent: the cell stops as a graceful stop does.
  bool out_of_time() const { return options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline; }

  void stop_looking_ahead() {
    if (lookahead_) lookahead_->stop();
  }


  // A case refused or not checkable is a discard, redrawn by the search. In
  // the ladder, a rung is redrawn (its other axes drawn again: a subject that
  // refuses odd head dims answers the next draw) up to kLadderRedraws times,
  // then passed over, so that a rung the subject refuses outright costs a
  // few requests and leaves its axis short of the gate.
  static constexpr int kLadderRedraws = 4;  // below RapidCheck's 10 discards that raise the size to the next rung
  CaseVerdict passed_over() {
    if (!ladder_) return CaseVerdict::discard;
    if (ladder_redraws_ < kLadderRedraws) {
      ++ladder_redraws_;
      return CaseVerdict::discard;
    }
    ladder_redraws_ = 0;
    return CaseVerdict::pass;
  }

  // Whether the cell judges no more cases (they pass vacuously). Once a
  // subject has broken, pecheck stops talking to it and the result is
  // overridden with the failure, so no shrink can mistake it for a property
  // violation; a cell stopped early (refusals, the time budget, a graceful
  // stop) passes its remaining cases vacuously too, and its result says so.
  bool judges_no_more() {
    if (failure || internal_error || interrupted || stopped_refusing || out_of_budget) return true;
    if (interrupt_signal() != 0) {
      interrupted = true;
    } else if (out_of_time()) {
      out_of_budget = true;
    } else {
      return false;
    }
    stop_looking_ahead();
    return true;
  }

  SearchCase judge_case(const DrawnInput& input) {
    if (judges_no_more()) return search_case(CaseVerdict::pass);
    probe_.begin_case();
    try {
      return judge_answered(input, input.measure(*this));
    } catch (const HarnessDiscard& discard) {
      // pecheck's own: not checkable here, never the subject's refusal (no streak either).
      ++coverage.not_checkable;
      if (coverage.not_checkable_reason.empty()) coverage.not_checkable_reason = discard.what();
      return search_case(passed_over(), discard.what());
    } catch (const Refusal& refusal) {
      return refused(refusal);
    } catch (const SubjectFailure& f) {
      failure = failure_info(f);
    } catch (const std::logic_error& e) {
      internal_error = fmt::format("{} is defective: {}", property_.info.id, e.what());
    } catch (const std::exception& e) {
      failure = SubjectFailureInfo{fmt::format("the subject threw: {}", e.what()), "", "", "", ""};
    }
    return search_case(CaseVerdict::pass);
  }

  // A case the subject answered, judged: not checkable at its size (passed
  // over), held (the closest to its bound kept) or failed (the witness kept).
  SearchCase judge_answered(const DrawnInput& input, Measurement measurement) {
    refusals.answered();
    refusals.answered_widths.insert(probe_.last_width());
    CaseJudgement judged = judge(std::move(measurement), model_, property_.impl.checks, false);
    if (judged.verdict == CheckVerdict::uncheckable) {
      probe_.uncheckable_case();
      ++coverage.not_checkable;
      if (coverage.not_checkable_reason.empty()) {
        const auto& c = judged.deciding();
        coverage.not_checkable_reason = fmt::format("{}: bound {:.3g} reaches the largest possible error at {}",
                                                    c.check.name, c.tolerance.bound, describe(c.check.where));
      }
      return search_case(passed_over(), "not checkable at this size");
    }
    probe_.commit_case();
    ladder_redraws_ = 0;
    ++(ladder_ ? ladder_measured : measured);
    if (judged.verdict == CheckVerdict::pass) {
      const JudgedCheck& nearest = judged.deciding();
      const bool nearer = !closest || nearest.ratio() > closest->ratio();
      const bool nearer_in_ladder = ladder_ && (!closest_in_ladder || nearest.ratio() > closest_in_ladder->ratio());
      if (!nearer && !nearer_in_ladder) return search_case(CaseVerdict::pass);
      JudgedCheck kept = nearest;
      with_formula(kept, model_);  // the words, for the checks kept alone
      if (nearer_in_ladder) closest_in_ladder = kept;
      if (nearer) {
        closest = std::move(kept);
        closest_note = judged.note;
      }
      return search_case(CaseVerdict::pass);
    }
    JudgedCheck decisive = judged.deciding();
    with_formula(decisive, model_);
    json in = input.inputs();
    const std::string text = fmt::format("{}: error {:.3g} vs bound {:.3g} at {}", decisive.check.name,
                                         decisive.check.error, decisive.tolerance.bound,
                                         describe(decisive.check.where));
    SearchCase d = search_case(CaseVerdict::fail, text, in.dump());
    last_failure = counterexample_of(std::move(in), decisive, judged.note);
    last_hint = precision_hint(property_, probe_.info(), options_, decisive);
    return d;
  }

  SearchCase refused(const Refusal& refusal) {
    // A subject may refuse with an empty text ({"error": ""}): reports say so, never "e.g. """.
    const std::string reason = *refusal.what() != '\0' ? refusal.what() : kNoReasonGiven;
    if (discard_reason.empty()) discard_reason = reason;
    ++discards;
    refusals.refused(reason);
    refusals.refused_widths.insert(probe_.last_width());
    coverage.refusals = refusals.kinds();
    // A search that meets nothing but refusals stops early (shrinking a
    // witness meets refused candidates by nature, and goes on).
    if (!last_failure && options_.refusal_streak > 0 && refusals.streak() >= options_.refusal_streak) {
      stopped_refusing = true;
      stop_looking_ahead();
    }
    return search_case(passed_over(), reason);
  }

 public:
  // Whether the cell draws no more cases (their verdicts pass vacuously): the
  // time budget spent, a refusal streak, or a graceful stop — noted here, as
  // the next case is drawn, not only once a case is judged: a cell whose
  // cases are discarded (not checkable, refused) judges none, and drew a
  // hundred thousand scripts before it saw a SIGTERM (35 s, issue 39).
  bool stopped_drawing() {
    if (!interrupted && interrupt_signal() != 0) {
      interrupted = true;
      stop_looking_ahead();
    }
    return out_of_budget || interrupted || stopped_refusing;
  }

  int discards = 0;
  int measured = 0;                         // cases the subject answered and were judged
  int ladder_measured = 0;                  // ... of the shape ladder
  std::string discard_reason;               // the first refusal
  RefusalLog refusals;                      // every refusal, grouped, and the streak
  bool stopped_refusing = false;            // stopped early on a streak of refusals
  bool out_of_budget = false;               // stopped when the run's time budget was spent
  Coverage coverage;
  std::optional<JudgedCheck> closest;       // the passing check closest to its bound
  std::string closest_note;
  std::optional<JudgedCheck> closest_in_ladder;  // ... among the shape ladder's cases
  std::optional<Counterexample> last_failure;
  std::string last_hint;                    // a lower precision that explains the last failure
  std::optional<SubjectFailureInfo> failure;
  std::optional<std::string> internal_error;
  bool interrupted = false;                 // the run was asked to stop during this cell

  Position answered_length() const { return probe_.answered_length(); }

  // The coverage so far, with the probe's ranges and the gates': the
  // positions' (--max-position, below a declared sequence length), the
  // flag's widths, and what the ladder's cases aimed at on each axis.
  Coverage covered(const GenContext& context, const LadderGates& gates) const {
    Coverage c = coverage;
    probe_.fill(c);
    c.position_gate = position_limit(context, property_.info.op);
    c.width_gate = options_.max_width;
    c.ladder_cases = ladder_measured;
    for (const auto& [axis, gate] : gates.gates()) {
      AxisCoverage& a = c.axes[axis];
      a.gate = gate.size;
      a.set_by = gate.set_by;
    }
    return c;
  }

 private:
  const PropertyDef& property_;
  const RunOptions& options_;
  Subject& subject_;
  bool ladder_ = false;
  int ladder_redraws_ = 0;  // redraws of the current rung (passed_over)
  BoundModel model_;
  std::unique_ptr<Lookahead> lookahead_;  // between the probe and the subject, when it batches
  CoverageProbe probe_;
};

// Where an encoder's or a rotary's table ends: between the longest sequence
// it answered and the shortest it refused, found by bisection with one-row
// requests at a width it answered (a dozen requests for a table of 5000), so
// that the advice names its exact length. Returns the shortest refused length.
Position table_end(Subject& subject, Op op, int width, Position answered, Position refused) {
  while (refused - answered > 1) {
    const Position mid = answered + (refused - answered) / 2;
    try {
      if (op == Op::encode) {
        ask::encode(subject, width, {mid - 1}, mid);
      } else {
        ask::rotate(subject, {mid - 1}, Matrix::Zero(1, width), mid);
      }
      answered = mid;
    } catch (const Refusal&) {
      refused = mid;
    } catch (const std::exception&) {
      break;  // the bounds found so far stand; a broken subject shows in its next cell
    }
  }
  return refused;
}

// The RapidCheck size a ladder case is drawn at: the axes it does not raise
// come out small (widths, tokens and batches at a tenth of their range).
constexpr int kLadderSize = 10;

// The ladder's cases: each rung of each axis the property scales
// (property/sizes.h), smallest first per axis.
std::vector<Focus> ladder_schedule(const PropertyDef& property, const GenContext& context) {
  std::vector<Focus> out;
  for (Axis axis : property.impl.axes) {
    const Rungs rungs = ladder_rungs(context, property.info.op, axis);
    for (std::size_t k = 0; k < rungs.sizes.size(); ++k) out.push_back({axis, k});
  }
  return out;
}

// Counts cases and shrinks, and reports them to options.progress (first
// after kFirst, then every kEvery) while the cell runs; once the cell is
// expected to take longer than options.slow_cell_seconds at its rate so far,
// the report says so (once).
class ProgressListener final : public CountingListener {
 public:
  ProgressListener(const RunOptions& options, int planned, std::string_view property, std::string_view subject,
                   const int& refused, const RefusalLog& refusals)
      : report_(options.progress), planned_(planned), slow_after_(options.slow_cell_seconds),
        property_(property), subject_(subject), refused_(refused), refusals_(refusals) {}

 private:
  void counted() override { tick(); }
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kFirst{500}, kEvery{100};
  static constexpr double kSlowJudgedAfter = 3;  // seconds: a rate measured over less says little
  void tick() {
    if (!report_) return;
    const auto now = Clock::now();
    if (now < next_) return;
    next_ = now + kEvery;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    CellProgress progress{property_, subject_, cases, planned_, shrinks_accepted, refused_, seconds, {}};
    if (slow_text_.empty() && slow_after_ > 0 && seconds >= kSlowJudgedAfter && shrinks_tried == 0) {
      // Cases still to come at the rate so far (refused inputs cost time too, and count as tries).
      const double rate = static_cast<double>(cases) / seconds;
      const double expected = rate > 0 ? static_cast<double>(planned_) / rate : INFINITY;
      if (expected > slow_after_) {
        slow_text_ = fmt::format("{} is slow: {} of {} cases in {:.1f} s", property_, cases, planned_, seconds);
        slow_text_ += std::isfinite(expected) ? fmt::format(" (about {:.0f} s at this rate)", expected)
                                              : std::string(" (none answered yet)");
        if (refused_ > 0) {
          slow_text_ += fmt::format("; {} inputs refused ({:.0f}%): {}", refused_,
                                    100.0 * refused_ / std::max(1, refused_ + cases), refusals_.grouped(2));
        }
        progress.slow = slow_text_;
      }
    }
    report_(progress);
  }
  const std::function<void(const CellProgress&)>& report_;
  int planned_;
  double slow_after_;
  std::string_view property_, subject_;
  const int& refused_;
  const RefusalLog& refusals_;
  std::string slow_text_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point next_ = start_ + kFirst;
};

// The property's explanation of its shrunk witness; a diagnosis that fails
// (the subject refuses or breaks on the extra requests) says so, and never
// changes the verdict.
void diagnose(const PropertyDef& property, Subject& subject, const BoundModel& model, Counterexample& c) {
  if (!property.impl.diagnose) return;
  try {
    c.diagnosis = property.impl.diagnose(subject, c.inputs, model);
  } catch (const std::exception& e) {
    c.diagnosis = fmt::format("(no diagnosis: {})", e.what());
  }
}

// Whether the witness fails again when measured once more on the same
// subject (what a deterministic shortfall, like a lower precision, does).
bool fails_again(const PropertyDef& property, Subject& subject, const BoundModel& model, const json& inputs) {
  if (!property.impl.remeasure) return true;
  try {
    return judge(property.impl.remeasure(subject, inputs, model), model, property.impl.checks).verdict ==
           CheckVerdict::fail;
  } catch (const std::exception&) {
    return false;
  }
}

// What a cell is run with, before any case: how reports name its subject,
// its seed, the context its inputs are drawn in, and its ladder.
struct CellPlan {
  std::string spec;  // as reports name the subject; seeds hash it
  std::uint64_t seed = 0;
  GenContext context;
  std::vector<Focus> ladder;
  std::string ladder_id;
  bool reproducing = false;  // a reproduce string names one case, of the search or of the ladder
  bool search = true;        // the search runs (not when the reproduced case is the ladder's)
};

CellPlan plan_cell(const PropertyDef& property, Subject& subject, const RunOptions& options) {
  const SubjectInfo& info = subject.info();
  const std::string spec = format_spec(info.spec);
  CellPlan plan{spec, derive_seed(options.seed, property.info.id, spec),
                GenContext{info, options.max_position, options.max_width, options.history}};
  // A fresh copy (history_independence): forked from the subject's zygote
  // where it makes copies, else started as the run starts its subjects (the
  // run's timeout and executable).
  if (makes_fresh_copies(subject)) {
    plan.context.fresh = [&subject] { return fresh_copy_of(subject); };
  } else if (can_start_afresh(info)) {
    plan.context.fresh = [spec = info.spec, options] { return make_subject_for(spec, options); };
  }
  plan.context.gates = std::make_shared<LadderGates>();
  plan.ladder = ladder_schedule(property, plan.context);
  plan.ladder_id = property.info.id + ":ladder";
  plan.reproducing = !options.reproduce.empty();
  plan.search = !plan.reproducing || !reproduces(options.reproduce, plan.ladder_id);
  return plan;
}

// The search: options.cases cases drawn by RapidCheck, each judged, the
// first failure shrunk. A cell stopped early (time budget, interrupt, a
// refusal streak) draws no more cases and cuts its shrinks short.
CheckOutcome run_search(const PropertyDef& property, const CellPlan& plan, CellState& state,
                        CountingListener& listener, const RunOptions& options) {
  const rc::Gen<DrawnPtr> inputs = property.impl.draw(plan.context);
  state.preview([inputs](const rc::Random& random, int size) { return inputs(random, size); });
  const rc::Gen<SearchCase> cases = state.cases(inputs);
  rc::Gen<SearchCase> drawn = options.fixed_size ? rc::gen::resize(options.max_size, cases) : cases;
  if (Lookahead* lookahead = state.lookahead()) {
    // The search draws each case here, then evaluates it: the look-ahead learns which case is next.
    drawn = rc::Gen<SearchCase>([drawn, lookahead](const rc::Random& random, int size) {
      lookahead->begin_search_case(random, size);
      return drawn(random, size);
    });
  }
  // A cell stopped early passes its remaining cases vacuously: draw none of
  // them (a million cases asked of a spent budget would otherwise still be
  // generated, one by one).
  drawn = rc::Gen<SearchCase>([drawn, &state](const rc::Random& random, int size) {
    if (state.stopped_drawing()) return rc::shrinkable::just(search_case(CaseVerdict::pass));
    return drawn(random, size);
  });
  drawn = rc::Gen<SearchCase>([drawn, &state, deadline = options.deadline](const rc::Random& random, int size) {
    return cut_shrinks(drawn(random, size), [&state, deadline] {
      if (!state.out_of_budget && deadline && std::chrono::steady_clock::now() >= *deadline) {
        state.out_of_budget = true;
      }
      return state.out_of_budget || state.interrupted || interrupt_signal() != 0;
    });
  });
  const SearchParams search{plan.seed, options.cases, options.max_size, options.shrink, property.info.id,
                            property.info.claim};
  CheckOutcome outcome = check_with_rapidcheck(drawn, search, listener, options.reproduce);
  // A batch still being answered is waited for: the diagnosis talks to the subject.
  if (Lookahead* lookahead = state.lookahead()) lookahead->settle();
  return outcome;
}

// The shape ladder, once the search held: one case per rung of each axis
// the property scales, each drawn at full size with that axis at its rung
// (case k of the ladder's search is rung k: sizes 0, 1, …).
CheckOutcome run_ladder(const PropertyDef& property, const CellPlan& plan, CellState& state,
                        CountingListener& listener, const RunOptions& options) {
  const int count = static_cast<int>(plan.ladder.size());
  std::vector<rc::Gen<DrawnPtr>> inputs;
  std::vector<rc::Gen<SearchCase>> rungs;
  const std::uint64_t seed = derive_seed(options.seed, plan.ladder_id, plan.spec);
  // Every other axis small: a ladder case costs what its one large axis costs.
  const int ladder_size = std::min(options.max_size, kLadderSize);
  state.begin_ladder(seed, count);
  for (int k = 0; k < count; ++k) {
    GenContext focused = plan.context;
    focused.focus = plan.ladder[static_cast<std::size_t>(k)];
    inputs.push_back(property.impl.draw(focused));
    // Search case k is rung k, drawn at full size: the look-ahead knows it as case k's.
    rungs.push_back(rc::gen::resize(ladder_size, state.cases(inputs.back(), k)));
  }
  state.preview([inputs, full = ladder_size](const rc::Random& random, int size) {
    return inputs[static_cast<std::size_t>(std::clamp(size, 0, static_cast<int>(inputs.size()) - 1))](random, full);
  });
  Lookahead* lookahead = state.lookahead();
  rc::Gen<SearchCase> drawn([rungs, lookahead](const rc::Random& random, int size) {
    if (lookahead) lookahead->begin_search_case(random, size);
    return rungs[static_cast<std::size_t>(std::clamp(size, 0, static_cast<int>(rungs.size()) - 1))](random, size);
  });
  const SearchParams search{seed, count, count - 1, options.shrink, plan.ladder_id, property.info.claim};
  CheckOutcome outcome = check_with_rapidcheck(drawn, search, listener, options.reproduce);
  if (Lookahead* l = state.lookahead()) l->settle();
  return outcome;
}

// The search, then the ladder where the search held; an exception of
// pecheck's own is an internal error, never an escape.
CheckOutcome run_cases(const PropertyDef& property, const CellPlan& plan, CellState& state,
                       ProgressListener& listener, const RunOptions& options, int& search_cases) {
  CheckOutcome outcome;
  try {
    if (plan.search) outcome = run_search(property, plan, state, listener, options);
    search_cases = listener.cases;
    const bool held = !outcome.failure && !outcome.gave_up && !outcome.error && !state.failure &&
                      !state.internal_error && !state.interrupted;
    if (!plan.ladder.empty() && held && (plan.reproducing ? !plan.search : true)) {
      outcome = run_ladder(property, plan, state, listener, options);
    }
  } catch (const std::exception& e) {
    outcome.error = true;
    outcome.message = fmt::format("internal error: {}", e.what());
  }
  return outcome;
}

// The cell's coverage: what the probe saw and the gates'. Encoders and
// rotaries whose cases name positions beyond 0 span the gate's range
// (rope.identity_at_zero asks for position 0 alone); a table found shorter
// than the gate is measured to its exact end.
Coverage cell_coverage(const PropertyDef& property, Subject& subject, const CellState& state, const CellPlan& plan,
                       const RunOptions& options) {
  const Op op = property.info.op;
  Coverage c = state.covered(plan.context, *plan.context.gates);
  const bool positional = op_row(op).positional &&
               std::max(c.max_position.value_or(0), c.max_refused_position.value_or(0)) > 0;
  if (positional && c.max_position) {
    AxisCoverage& a = c.axes[Axis::positions];
    a.gate = c.position_gate;
    a.set_by = fmt::format("--max-position {}", options.max_position);
    if (a.gate < options.max_position) a.set_by = fmt::format("params.{}.shapes.n", name(op));
  }
  c.shortfall = coverage_shortfall(c, positional, op);
  if (positional && !c.shortfall.empty() && c.shortest_refused_length && c.max_refused_position &&
      c.max_width > 0 && !state.failure) {
    c.shortest_refused_length = table_end(subject, op, c.max_width, state.answered_length(), *c.shortest_refused_length);
    c.shortfall = coverage_shortfall(c, positional, op);
  }
  return c;
}

std::string plural(int n) { return n == 1 ? "" : "s"; }

// A cell stopped before its cases were all judged: the reason, if any.
// The cases after the stop passed vacuously: a stopped cell counts only
// those the subject answered.
std::optional<Outcome> stopped_outcome(const CellState& state, const RunOptions& options, const Op op,
                                       bool witness_found) {
  if (state.interrupted || (state.failure && interrupt_signal() != 0)) {
    // Cut short by a graceful stop (and a subject failure after it is the stop killing the subject).
    return NotRun{fmt::format("interrupted by {} after {} case{}", interrupt_name(interrupt_signal()), state.measured,
                              plural(state.measured))};
  }
  if (state.failure) return SubjectFailed{*state.failure};
  if (state.out_of_budget && !witness_found && !state.internal_error) {
    return NotRun{fmt::format("stopped: the run's time budget ({:g} s) was spent after {} case{} of this cell",
                              options.time_budget, state.measured, plural(state.measured))};
  }
  if (state.stopped_refusing && !state.internal_error) {
    return GaveUp{early_stop_reason(op, state.measured, state.refusals)};
  }
  return std::nullopt;
}

// A witness: shrunk to the end and diagnosed, or, when the budget ended the
// shrink, the smallest counterexample so far, said so, and no diagnosis (its
// probes would ask the subject more, past the budget).
Violated violated_outcome(const PropertyDef& property, Subject& subject, CellState& state, const RunOptions& options,
                          const CheckOutcome& outcome, const ProgressListener& listener, bool& cut_short) {
  Counterexample& witness = *state.last_failure;
  std::string& d = witness.diagnosis;
  cut_short = state.out_of_budget;
  if (cut_short) {
    d += fmt::format("{}shrinking cut short by the run's time budget ({:g} s) after {} accepted shrink step{} of {} "
                     "tried: the smallest counterexample found so far, not a minimal one (a larger "
                     "--time-budget shrinks further)",
                     d.empty() ? "" : "; ", options.time_budget, listener.shrinks_accepted,
                     plural(listener.shrinks_accepted), listener.shrinks_tried);
    return Violated{witness, outcome.reproduce, {}};
  }
  diagnose(property, subject, state.model(), witness);
  // A property's own diagnosis probes further (the reference claims weigh
  // angle precision among their suspects on many answers) and says more
  // than one case can; a precision shortfall repeats, a failure that
  // depends on what came before does not.
  if (!d.empty() || !fails_again(property, subject, state.model(), witness.inputs)) state.last_hint.clear();
  if (!state.last_hint.empty()) d += (d.empty() ? "" : "; ") + state.last_hint;
  return Violated{witness, outcome.reproduce, {}};
}

// RapidCheck's own text on giving up is only the last discard's
// description: say what happened, and what to declare where angles in a
// 16-bit dtype cannot tell the positions apart.
GaveUp gave_up_outcome(const PropertyDef& property, const SubjectInfo& info, const CellState& state,
                       const PropertyResult& result, const RunOptions& options) {
  const int discarded = state.discards + result.coverage.not_checkable;
  std::string reason = fmt::format("gave up: {} input{} discarded with {} of {} case{} judged (RapidCheck stops "
                                   "past {} discards per case)",
                                   discarded, plural(discarded), result.cases, options.cases, plural(options.cases),
                                   default_max_discard_ratio());
  if (state.refusals.total() > 0) {
    reason += fmt::format("; refused: {}{}", state.refusals.grouped(), refusal_advice(property.info.op, state.refusals));
  }
  if (result.coverage.not_checkable == 0) return GaveUp{reason};
  reason += fmt::format("; {} case(s) not checkable at their size ({})", result.coverage.not_checkable,
                        result.coverage.not_checkable_reason);
  const Dtype angles = info.angles_dtype();
  if (op_row(property.info.op).positional &&
      unit_roundoff(angles) > unit_roundoff(Dtype::float32)) {
    reason += fmt::format(". Angles computed in {} (as declared{}) cannot tell these positions apart: if the "
                          "subject computes its angles in float32, as transformers does, declare compute.angles "
                          "= \"float32\" (Python: compute={{\"angles\": \"float32\"}}); else verify fewer "
                          "positions with --max-position",
                          name(angles), info.compute.angles ? "" : ", the dtype's by default");
  }
  return GaveUp{reason};
}

}  // namespace

PropertyResult run_cell(const PropertyDef& property, Subject& subject, const RunOptions& options, Expect expectation) {
  const CellPlan plan = plan_cell(property, subject, options);
  PropertyResult result;
  result.property = property.info.id;
  result.subject = plan.spec;
  result.expectation = expectation;
  result.seed = plan.seed;

  CellState state(property, subject, options, plan.seed);
  ProgressListener listener(options, options.cases + static_cast<int>(plan.ladder.size()), property.info.id,
                            plan.spec, state.discards, state.refusals);
  const auto start = std::chrono::steady_clock::now();
  int search_cases = 0;
  const CheckOutcome outcome = run_cases(property, plan, state, listener, options, search_cases);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cases = search_cases;
  // A reproduce string replays one recorded case outside RapidCheck's search,
  // which the listener does not see: that case was judged, and the coverage
  // (which counts judged cases) must not show a range checked by "0 cases".
  if (plan.reproducing) result.cases = std::max(result.cases, std::min(state.measured, 1));
  result.shrinks = listener.shrinks_accepted;
  result.shrink_tries = listener.shrinks_tried;
  result.discards = state.discards;
  result.discard_reason = state.discard_reason;
  result.coverage = cell_coverage(property, subject, state, plan, options);

  const bool witness = outcome.failure && state.last_failure;
  if (std::optional<Outcome> stopped = stopped_outcome(state, options, property.info.op, witness)) {
    result.cases = state.measured;
    result.outcome = std::move(*stopped);
  } else if (state.internal_error) {
    result.outcome = Errored{*state.internal_error};
  } else if (witness) {
    result.outcome = violated_outcome(property, subject, state, options, outcome, listener, result.shrink_cut_short);
  } else if (outcome.gave_up) {
    result.outcome = gave_up_outcome(property, subject.info(), state, result, options);
  } else if (outcome.error || outcome.failure) {
    result.outcome = Errored{outcome.message.empty() ? "RapidCheck reported a failure without a case" : outcome.message};
  } else if (!result.coverage.shortfall.empty()) {
    result.outcome = Uncovered{result.coverage.shortfall};
  } else {
    result.outcome = Held{state.closest, state.closest_note, state.closest_in_ladder};
  }
  return result;
}

}  // namespace pecheck

#pragma once
// Observes every request a property sends to the subject during one cell and
// keeps what was actually checked: the largest size on each axis (core/axis.h:
// width, rows, queries, keys, tokens, heads, batch, positions, history) in the
// cases that were judged, and in the requests the subject refused. A proxy
// Subject, so coverage needs nothing from the properties themselves; a
// measurement that talks to another subject (a fresh copy running a history
// script) has its requests counted through a watch of the same probe.
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/property/sizes.h"
#include "pecheck/result/result.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

class CoverageProbe final : public Subject {
 public:
  explicit CoverageProbe(Subject& inner);

  const SubjectInfo& info() const override { return inner_->info(); }
  Answer perform(const Call& call) override;
  std::string log_tail() const override { return inner_->log_tail(); }

  // The subject it forwards to from now on (the ladder's look-ahead).
  void forward_to(Subject& inner) { inner_ = &inner; }
  // A probe of `other` that records into this one's case (valid until the next call).
  Subject& watch(Subject& other);

  // A refusal of a request inside the subject's declared shapes
  // (params.<op>.shapes) is a subject failure, not a discard: `failing` turns
  // this on (the runner does, for every cell).
  void refuse_inside_declared(bool failing) { state_->declared_fail = failing; }

  // A case starts; it counts as checked only when committed (judged pass or
  // fail); a case the judge could not check records its positions apart.
  void begin_case();
  void commit_case();
  void uncheckable_case();
  // Folds what the committed cases and the refused requests reached into `coverage`.
  void fill(Coverage& coverage) const;
  // The width (d) of the last request, and whether it was answered: what a refusal was refused at.
  int last_width() const { return state_->last_width; }
  // The longest sequence (seq_len, else largest position + 1) of a request it answered.
  Position answered_length() const { return state_->answered_length; }

 private:
  struct State {
    std::optional<Position> case_position, checked_position, uncheckable_position;
    int case_width = 0, checked_width = 0, refused_width = 0, last_width = 0;
    // The widest request of this case refused: a case judged all the same took
    // the refusal as its answer (attention.fully_masked_rows under "refuse").
    int case_refused_width = 0;
    // Each refused request's largest position and width: a refusal at a width
    // the subject does handle says something about positions.
    std::vector<std::pair<std::optional<Position>, int>> refused;
    // Each refused request's sequence length (seq_len, else its largest
    // position + 1) and width, and the longest sequence answered.
    std::vector<std::pair<Position, int>> refused_lengths;
    Position answered_length = 0;
    AxisSizes case_sizes{}, checked_sizes{}, refused_sizes{};
    std::int64_t case_requests = 0;                  // requests answered in the current case
    std::map<std::string, std::int64_t> decoded;     // per decode session: tokens since its reset
    bool declared_fail = false;
  };
  CoverageProbe(Subject& inner, std::shared_ptr<State> state) : inner_(&inner), state_(std::move(state)) {}

  // What one call reaches (calls.h reach_of, by the call's codec).
  using Reach = CallReach;
  Answer observe(Reach reach, const Call& call);
  void fail_if_declared(const Reach& reach, const std::string& reason) const;

  Subject* inner_;
  std::shared_ptr<State> state_;
  std::unique_ptr<CoverageProbe> watch_;
};

// Why a cell's checked range falls short of what the gate asked, or empty.
// What was asked and could not be checked decides, not what the generator
// happened to draw: positions fall short (for encoders and rotaries, whose
// generators span [0, --max-position]) when the subject refused positions
// more than 10% beyond the largest it answered at a width it handles, or when
// cases beyond it were not checkable at the subject's precision; widths fall
// short when it refused widths more than 10% beyond the largest it answered;
// an axis the shape ladder gates (Coverage::axes with a gate) falls short
// when no judged case reached its gate. The text names the axis, the range
// checked, why, and the flag or declaration that sets the gate.
std::string coverage_shortfall(const Coverage& coverage, bool positional, Op op = Op::encode);

}  // namespace pecheck

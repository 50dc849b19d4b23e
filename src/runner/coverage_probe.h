#pragma once
// Observes every request a property sends to the subject during one cell and
// keeps what was actually checked: the largest position and width in the
// cases that were judged, and in the requests the subject refused. A proxy
// Subject, so coverage needs nothing from the properties themselves.
#include <optional>

#include "pecheck/result/result.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

class CoverageProbe final : public Subject {
 public:
  explicit CoverageProbe(Subject& inner) : inner_(inner) {}

  const SubjectInfo& info() const override { return inner_.info(); }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override;
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override;
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                     std::optional<Position> seq_len) override;
  Matrix rotate_layer(int layer, const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) override;
  Matrix add(const Matrix& x, const Matrix& p) override;
  Matrix concat(const Matrix& x, const Matrix& p) override;
  Matrix project(const Matrix& w, const Matrix& z) override;
  Matrix bias(int n, int m, int head) override;
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override;
  Batch forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                      const BoolMatrix& padding) override;
  Vector decode(const std::string& session, const Vector& x, Position position) override;
  void reset(const std::string& session) override;
  Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                       const std::vector<Positions>& segments) override;
  Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions) override;
  void reset_with_capacity(const std::string& session, Position capacity) override;
  std::string log_tail() const override { return inner_.log_tail(); }

  // A case starts; it counts as checked only when committed (judged pass or
  // fail); a case the judge could not check records its positions apart.
  void begin_case();
  void commit_case();
  void uncheckable_case();
  // Folds what the committed cases and the refused requests reached into `coverage`.
  void fill(Coverage& coverage) const;
  // The width (d) of the last request, and whether it was answered: what a refusal was refused at.
  int last_width() const { return last_width_; }

 private:
  // Calls `answer` and records the request's largest position and width, as
  // answered (pending until the case is committed) or refused.
  template <class F>
  auto observe(std::optional<Position> position, int width, F answer) -> decltype(answer());

  Subject& inner_;
  std::optional<Position> case_position_, checked_position_, uncheckable_position_;
  int case_width_ = 0, checked_width_ = 0, refused_width_ = 0, last_width_ = 0;
  // The widest request of this case refused: a case judged all the same took
  // the refusal as its answer (attention.fully_masked_rows under "refuse").
  int case_refused_width_ = 0;
  // Each refused request's largest position and width: a refusal at a width
  // the subject does handle says something about positions.
  std::vector<std::pair<std::optional<Position>, int>> refused_;
};

// Why a cell's checked range falls short of what the gate asked, or empty.
// What was asked and could not be checked decides, not what the generator
// happened to draw: positions fall short (for encoders and rotaries, whose
// generators span [0, --max-position]) when the subject refused positions
// more than 10% beyond the largest it answered at a width it handles, or when
// cases beyond it were not checkable at the subject's precision; widths fall
// short when it refused widths more than 10% beyond the largest it answered. The
// text names the range checked and the flag that gates what the subject handles.
std::string coverage_shortfall(const Coverage& coverage, bool positional);

}  // namespace pecheck

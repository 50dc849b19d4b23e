#pragma once
// Built-in rotary subjects (CLAIMS.md §3): R_t x rotates pair i of x by t·ω_i,
// ω_i = 10000^(-2i/d), with pairs (2i, 2i+1) ("rope") or (i, i + d/2)
// ("rope-halves"), and variants that compute in a reduced precision.
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck {

// R_t x computed the way implementations do it, one step per hook:
//   out = x ⊙ cos(θ) + rotate_half(x) ⊙ sin(θ),  θ_j = t·ω_{pair(j)},
// with every intermediate rounded to the declared dtype (emulating a subject
// that computes in it). Planted bugs override exactly one step.
class RopeSubject : public Subject {
 public:
  explicit RopeSubject(SubjectInfo info) : info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;

 protected:
  // The position the angle is computed from (a cache lookup may wrap or clamp).
  virtual double position_used(Position t) const { return static_cast<double>(t); }
  // ω_i for pair i of a d-dimensional vector.
  virtual double frequency(int pair, int dim) const;
  // θ = t·ω_i, each factor and the product rounded to the dtype.
  virtual double angle(Position t, int pair, int dim) const;
  // Which pair's angle component `column` is rotated by (the cos/sin table layout).
  virtual int table_pair(int column, int dim) const;
  // rotate_half(x) = (−x_second, x_first) per pair: the sign of the first entry.
  virtual double rotate_half_sign() const { return -1.0; }

  double rounded(double value) const { return round_to(info_.dtype, value); }
  // The two columns of pair i in the subject's layout.
  int first_column(int pair) const;
  int second_column(int pair, int dim) const;

 private:
  SubjectInfo info_;
};

// info for a rotary subject: op rotate, scheme "rope" unless given.
SubjectInfo rope_info(std::string name, std::string spec, Layout layout, Dtype dtype,
                      std::string scheme = "rope");

std::vector<SubjectEntry> rope_builtins();

}  // namespace pecheck

#pragma once
// Built-in rotary subjects (CLAIMS.md §3, §5): R_t x under any declared
// RotateConvention (base, rotary width, layout, scaling), computed the way
// implementations compute it and in the precisions they mix.
#include <optional>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// R_t x computed as implementations do, one step per hook:
//   ω_i from the declared convention (reference/rotary.h) at the request's
//   length, θ = t·ω_i (t the position of pair i's axis), the cos/sin table,
//   then on each pair of the rotated block out = x ⊙ cos(θ) + rotate_half(x) ⊙
//   sin(θ), written where the layout puts it; features past the rotated width
//   pass through.
// Precision as real mixed-precision code has it: the angle stage (t, ω_i, their
// product, its sine and cosine, and YaRN's factor on the table) rounds to
// info.angles_dtype(); the table is then cast to the value dtype, and the values
// (x, every product and sum, the output) round to info.dtype. With both
// float64 this is the reference up to double rounding. Planted bugs override
// exactly one step.
class RopeSubject : public TypedSubject {
 public:
  explicit RopeSubject(SubjectInfo info) : info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  // Multi-axis positions (a subject declaring mrope_section); rotate() puts a
  // one-axis request's positions on every axis.
  Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                     std::optional<Position> seq_len) override;
  // The VJP of this subject's own rotation (CLAIMS.md §11): the transpose of
  // the per-pair matrix rotate() applies, from the same cos/sin table in the
  // same precisions: dx_a = g_a·cos + s₂·g_b·sin, dx_b = g_b·cos + s₁·g_a·sin.
  // Answered for the built-ins that declare params.backward.of = ["rotate"].
  Batch rotate_backward(const RotateCall& call, const Matrix& grad) override;

 protected:
  // The width that rotates (the declared one; a bug may rotate another).
  virtual int rotated_width(int dim) const;
  // The position the angle is computed from (a cache lookup may wrap or clamp).
  virtual double position_used(Position t) const { return static_cast<double>(t); }
  // ω_i for the pairs of a rotated block of width r, for a request of `length`.
  virtual std::vector<double> inverse_frequencies(int rotary_width, Position length) const;
  // θ = t·ω, each factor and the product rounded to the angle dtype.
  virtual double angle(Position t, double inv_freq, Position length) const;
  // The factor the cos/sin table carries (YaRN's attention factor).
  virtual double table_magnitude() const;
  // Which pair's angle component `column` of the rotated block uses (the cos/sin table layout).
  virtual int table_pair(int column, int rotary_width) const;
  // The axis whose position pair i turns by (multi-axis positions; 0 otherwise).
  virtual int axis_of(int pair, int rotary_width) const;
  // The index into inverse_frequencies pair i turns at (a 2-D rotary rearranges them).
  virtual int frequency_of(int pair, int rotary_width) const;
  // The length a length-dependent scaling sees for a request (reference::rotary_length).
  virtual Position request_length(const std::vector<Positions>& positions, std::optional<Position> seq_len) const;
  // rotate_half(x) = (s₁·x_second, s₂·x_first) per pair; s₁ = −1, s₂ = +1 rotate by +θ.
  virtual double rotate_half_sign() const { return -1.0; }
  virtual double rotate_half_second_sign() const { return 1.0; }
  // The backward's steps a planted bug may get wrong: whether it transposes
  // the pair's matrix (false: it turns g by +θ as the forward turns x), and
  // the layout its pairs are read in.
  virtual bool backward_transposes() const { return true; }
  virtual Layout backward_layout() const { return info_.rotate_layout(); }

  double rounded(double value) const { return round_to(info_.dtype, value); }
  double rounded_angle(double value) const { return round_to(info_.angles_dtype(), value); }
  // The two columns of pair i of a rotated block of width r, in the declared layout.
  int first_column(int pair, int rotary_width) const;
  int second_column(int pair, int rotary_width) const;

 private:
  SubjectInfo info_;
};

// info for a rotary subject: op rotate, scheme "rope" unless given. `layout`
// is version 1's top-level layout.
SubjectInfo rope_info(std::string name, SubjectSpec spec, Layout layout, Dtype dtype,
                      std::string scheme = "rope");
// info for a subject declaring a v2 convention: params.rotate = `convention`
// (top-level layout unspecified), `declared` the v2 field paths it states
// ("params.rotate.base", …), and compute.angles when given.
SubjectInfo rope_info(std::string name, SubjectSpec spec, const RotateConvention& convention, Dtype dtype,
                      std::optional<Dtype> angles, std::vector<std::string> declared, std::string scheme);

std::vector<SubjectEntry> rope_builtins();

}  // namespace pecheck

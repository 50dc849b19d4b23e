#pragma once
// DeepSeek MLA's decoupled rotary (CLAIMS.md §10, rope.decoupled): a query or
// key head of qk_nope_head_dim + qk_rope_head_dim features whose last
// qk_rope_head_dim features rotate (interleaved unless another layout is
// declared) and whose first qk_nope_head_dim pass through unchanged.
#include <memory>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

// A rotate request of width nope + rope: the rope slice turned by `slice`
// (a RopeSubject of the slice's convention, reference::rope_slice), the
// rest passed through. Other widths are refused.
class DecoupledRopeSubject : public TypedSubject {
 public:
  DecoupledRopeSubject(SubjectInfo info, std::unique_ptr<RopeSubject> slice)
      : info_(std::move(info)), slice_(std::move(slice)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;

 protected:
  // The first column of the features that turn: nope (a planted bug turns others).
  virtual Eigen::Index rotated_from(Eigen::Index nope) const { return nope; }

 private:
  SubjectInfo info_;
  std::unique_ptr<RopeSubject> slice_;
};

// DeepSeek-V2/V3 (deepseek-ai config.json: qk_nope_head_dim 128,
// qk_rope_head_dim 64, rope_theta 10000), the rope slice interleaved as the
// spec's default (vLLM's DeepSeek rotary is GPT-J style, is_neox_style=False).
RotateConvention deepseek_mla();
// The info of a decoupled rotary subject declaring `convention`, in float32.
SubjectInfo mla_info(std::string name, SubjectSpec spec, const RotateConvention& convention, std::string scheme);
// The RopeSubject that turns the rope slice of `info`'s convention, laid out as `layout`.
std::unique_ptr<RopeSubject> mla_slice(const SubjectInfo& info, Layout layout);

std::vector<SubjectEntry> rope_decoupled_builtins();

}  // namespace pecheck

#include "pecheck/subjects/builtin/rope_decoupled.h"

#include <fmt/format.h>

#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"

namespace pecheck {

Matrix DecoupledRopeSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  const int rope = *info_.rotate.qk_rope_head_dim, nope = info_.rotate.qk_nope_head_dim.value_or(0);
  if (x.cols() != rope + nope) {
    throw Refusal(fmt::format("rotate: a decoupled head has {} + {} features, got {}", nope, rope, x.cols()));
  }
  Matrix out = x;
  const Eigen::Index from = rotated_from(nope);
  out.middleCols(from, rope) = slice_->rotate(positions, x.middleCols(from, rope), seq_len);
  return out;
}

RotateConvention deepseek_mla() {
  RotateConvention c;
  c.base = 10000;
  c.layout = Layout::interleaved;
  c.qk_rope_head_dim = 64;
  c.qk_nope_head_dim = 128;
  return c;
}

SubjectInfo mla_info(std::string name, SubjectSpec spec, const RotateConvention& convention, std::string scheme) {
  std::vector<std::string> declared = {"params.rotate.base", "params.rotate.qk_rope_head_dim",
                                       "params.rotate.qk_nope_head_dim"};
  if (convention.layout != Layout::unspecified) declared.push_back("params.rotate.layout");
  return rope_info(std::move(name), std::move(spec), convention, Dtype::float32, std::nullopt, std::move(declared),
                   std::move(scheme));
}

std::unique_ptr<RopeSubject> mla_slice(const SubjectInfo& info, Layout layout) {
  RotateConvention slice = reference::rope_slice(info.rotate);
  slice.layout = layout;
  return std::make_unique<RopeSubject>(rope_info(info.name + "/rope-slice", info.spec, slice, info.dtype,
                                                 info.compute.angles, {}, info.scheme));
}

std::vector<SubjectEntry> rope_decoupled_builtins() {
  return {{"rope@mla",
           "DeepSeek-V2/V3 MLA decoupled rotary: heads of 128 + 64 features, the last 64 rotate (interleaved, base "
           "10⁴), the first 128 pass through; float32",
           [] {
             SubjectInfo info = mla_info("rope@mla", builtin_spec("rope@mla"), deepseek_mla(), "rope@mla");
             auto slice = mla_slice(info, reference::rope_slice(info.rotate).layout);
             return std::make_unique<DecoupledRopeSubject>(std::move(info), std::move(slice));
           }}};  // a column of the claims matrix (issue 35): the MLA head judged by every claim that applies
}

}  // namespace pecheck

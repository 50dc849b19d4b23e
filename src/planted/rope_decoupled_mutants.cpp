// Planted bugs of DeepSeek MLA's decoupled rotary (CLAIMS.md §10,
// rope.decoupled): each declares what rope@mla declares, is judged by its
// scheme, and turns the wrong features or in the wrong layout.
#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/rope_decoupled.h"

namespace pecheck {

namespace planted::rope_decoupled_mutants {  // the file's own names (the planted bugs compile in unity batches)

// The rotary applied to the first qk_rope_head_dim features of the head (the
// nope slice), as a port that rotates "the first rotary_dim features" the way
// GPT-J's partial rotary does, where MLA puts the rope part last.
class RopeOnNopeSlice : public DecoupledRopeSubject {
 public:
  using DecoupledRopeSubject::DecoupledRopeSubject;

 protected:
  Eigen::Index rotated_from(Eigen::Index) const override { return 0; }
};

// The nope features returned as zeros: an output buffer written only where
// the rope slice goes, the rest left zero-filled.
class NopeZeroed : public DecoupledRopeSubject {
 public:
  using DecoupledRopeSubject::DecoupledRopeSubject;
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    Matrix out = DecoupledRopeSubject::rotate(positions, x, seq_len);
    out.leftCols(info().rotate.qk_nope_head_dim.value_or(0)).setZero();
    return out;
  }
};

SubjectInfo twin(const std::string& name) { return mla_info(name, mutant_spec(name), deepseek_mla(), "rope@mla"); }

}  // namespace planted::rope_decoupled_mutants

std::vector<SubjectEntry> rope_decoupled_mutants() {
  using namespace planted::rope_decoupled_mutants;
  return {
      {"rope-mla-nope-slice",
       "MLA's rotary applied to the first qk_rope_head_dim features (the nope slice) instead of the last",
       [] {
         SubjectInfo info = twin("rope-mla-nope-slice");
         auto slice = mla_slice(info, Layout::interleaved);
         return std::make_unique<RopeOnNopeSlice>(std::move(info), std::move(slice));
       }},
      {"rope-mla-nope-zeroed",
       "MLA's nope features returned as zeros (the output buffer written only where the rope slice goes)",
       [] {
         SubjectInfo info = twin("rope-mla-nope-zeroed");
         auto slice = mla_slice(info, Layout::interleaved);
         return std::make_unique<NopeZeroed>(std::move(info), std::move(slice));
       }},
      {"rope-mla-rotate-half",
       "MLA's rope slice turned by rotate_half (pairs (i, i + r/2)) where interleaved pairs are declared (vLLM's "
       "DeepSeek rotary is is_neox_style=False)",
       [] {
         SubjectInfo info = twin("rope-mla-rotate-half");
         auto slice = mla_slice(info, Layout::halves);
         return std::make_unique<DecoupledRopeSubject>(std::move(info), std::move(slice));
       }},
  };
}

}  // namespace pecheck

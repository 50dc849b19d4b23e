// Planted bugs of Qwen2.5-1M's dual chunk attention (params.attention.dual_chunk,
// attention.reference_values): each declares what builtin:attention-dca
// declares and reads one range of the positions otherwise, the way a port of
// vLLM's DualChunkRotaryEmbedding gets it wrong (reference/dual_chunk.h):
// the successive-chunk query cache built without its clamp at chunk_size
// (vLLM keeps that unclamped table too, as qc_no_clamp, for its sparse
// "critical" path: the two are easy to swap), the inter-chunk query read one
// row early, keys rotated at their absolute positions, or no remapping at all
// (plain RoPE, a kernel that ignores dual_chunk_attention_config).
#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::dual_chunk_mutants {  // the file's own names (the planted bugs compile in unity batches)

class MisreadChunks : public TypedSubject {
 public:
  MisreadChunks(SubjectInfo info, reference::DualChunkReading reading) : info_(std::move(info)), reading_(reading) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    return reference::attention_dual_chunk(q, k, v, mask, heads, info_.dtype, info_.attention, reading_);
  }

 private:
  SubjectInfo info_;
  reference::DualChunkReading reading_;
};

SubjectEntry entry(const char* name, const char* description, reference::DualChunkReading reading) {
  return {name, description, [name, reading] {
            SubjectInfo info = dual_chunk_attention_info(name, mutant_spec(name), Dtype::float64);
            info.scheme = "attention-dca";
            return std::make_unique<MisreadChunks>(std::move(info), reading);
          }};
}

}  // namespace planted::dual_chunk_mutants

std::vector<SubjectEntry> dual_chunk_mutants() {
  using planted::dual_chunk_mutants::entry;
  using R = reference::DualChunkReading;
  return {
      entry("dca-successive-unclamped",
            "dual chunk attention whose queries for the chunk before are rotated at p mod L + L, the clamp at "
            "chunk_size missing (vLLM's qc_no_clamp table where the clamped qc one belongs)",
            R::successive_unclamped),
      entry("dca-inter-off-by-one",
            "dual chunk attention whose queries for chunks further back are rotated one position early "
            "(min(2L − 1, chunk_size) − 1)",
            R::inter_off_by_one),
      entry("dca-plain-rope",
            "dual_chunk_attention_config ignored: queries and keys rotated at their absolute positions (plain "
            "RoPE), nothing remapped beyond the chunk",
            R::plain_rope),
      entry("dca-keys-absolute",
            "dual chunk attention whose keys are rotated at j instead of j mod L (the key cache indexed by the "
            "absolute position)",
            R::keys_absolute),
  };
}

}  // namespace pecheck

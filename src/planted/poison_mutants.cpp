// Planted bugs of attention over caches whose unused slots are uninitialised
// memory (CLAIMS.md §10, attention.poison_invariance): each declares what
// attention-paged declares (bottom-right causal, a window of 4,
// poison_invariance) and lets an unreachable key or value into the
// arithmetic, the two ways published kernels have.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::poison_mutants {  // the file's own names (the planted bugs compile in unity batches)

enum class Flaw {
  // The logits of hidden keys replaced by −∞ (right), then P·V over every
  // key: a weight of exactly 0 times a NaN value is NaN (vLLM PR #30887: V
  // blocks outside the sliding window not masked; PR #936 before it).
  nan_times_zero,
  // The cache's slots sanitised on load (NaN → 0, torch.nan_to_num: a
  // partial defence against NaN pages), the mask then added to every logit
  // as −10⁴ (BERT-era (1 − mask)·−10000) instead of replacing it: a key of
  // 1e30 makes q·k outweigh the mask.
  additive_mask,
};

class PoisonFlaw : public TypedSubject {
 public:
  PoisonFlaw(SubjectInfo info, Flaw flaw) : info_(std::move(info)), flaw_(flaw) {}
  const SubjectInfo& info() const override { return info_; }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    const AttentionConvention& c = info_.attention;
    if (flaw_ == Flaw::additive_mask) {
      const auto clean = [](double x) { return std::isnan(x) ? 0.0 : x; };
      return attend(q, k.unaryExpr(clean), v.unaryExpr(clean), mask, heads, c);
    }
    return attend(q, k, v, mask, heads, c);
  }

 private:
  Matrix attend(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                const AttentionConvention& c) const {
    reference::check_grouped_inputs(q, k, v, mask, heads, c);
    const int groups = reference::kv_heads_of(q, k, v, heads);
    const Eigen::Index n = q.rows(), m = k.rows(), dh = q.cols() / heads, dv = v.cols() / groups;
    const BoolMatrix seen = reference::visible_keys(mask, n, m, c);
    const double scale = c.scale_for(dh);
    Matrix y = Matrix::Zero(n, heads * dv);
    for (int h = 0; h < heads; ++h) {
      const int g = AttentionConvention::kv_head_of(h, heads, groups, c.grouping);
      for (Eigen::Index i = 0; i < n; ++i) {
        if (!seen.row(i).any()) throw Refusal(fmt::format("query {} may attend to no key", i));
        std::vector<double> s(static_cast<size_t>(m));
        double top = -std::numeric_limits<double>::infinity();
        for (Eigen::Index j = 0; j < m; ++j) {
          const double logit = q.row(i).segment(h * dh, dh).dot(k.row(j).segment(g * dh, dh)) * scale;
          double& x = s[static_cast<size_t>(j)];
          if (flaw_ == Flaw::additive_mask) x = logit + (seen(i, j) ? 0.0 : -1e4);
          else x = seen(i, j) ? logit : -std::numeric_limits<double>::infinity();
          if (!(x <= top)) top = x;  // a NaN logit becomes the maximum and spreads
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - top));
        // P·V over every key of the cache, hidden ones included (weight 0).
        for (Eigen::Index j = 0; j < m; ++j) {
          y.row(i).segment(h * dv, dv) += (s[static_cast<size_t>(j)] / sum) * v.row(j).segment(g * dv, dv);
        }
      }
    }
    return y;
  }

  SubjectInfo info_;
  Flaw flaw_;
};

SubjectPtr paged_with(const std::string& name, Flaw flaw) {
  SubjectInfo info = paged_attention_info(name, mutant_spec(name), Dtype::float64);
  return std::make_unique<PoisonFlaw>(std::move(info), flaw);
}

}  // namespace planted::poison_mutants

std::vector<SubjectEntry> poison_mutants() {
  using namespace planted::poison_mutants;
  return {
      {"attention-paged-nan-times-zero",
       "a paged cache's attention that masks the logits but multiplies every cache slot's value by its weight: "
       "NaN·0 = NaN from unreachable slots (vLLM PR #30887, V blocks outside the window not masked)",
       [] { return paged_with("attention-paged-nan-times-zero", Flaw::nan_times_zero); }},
      {"attention-paged-additive-mask",
       "a paged cache's attention that sanitises NaN slots on load (nan_to_num) but adds the mask to the logits as "
       "−10⁴ instead of replacing them: a key of 1e30 in an unreachable slot outweighs it",
       [] { return paged_with("attention-paged-additive-mask", Flaw::additive_mask); }},
  };
}

}  // namespace pecheck

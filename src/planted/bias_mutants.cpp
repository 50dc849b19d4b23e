// Planted attention-bias bugs: each an AlibiSubject or T5BiasSubject with
// one step overridden, judged by its twin's scheme ("alibi" or "t5").
#include <cmath>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/bias.h"
#include "pecheck/subjects/builtin/bias.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::bias_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo alibi_mutant_info(const std::string& name, int heads) {
  return bias_info(name, mutant_spec(name), {BiasScheme::alibi, heads}, "alibi");
}

SubjectInfo t5_mutant_info(const std::string& name) {
  BiasConvention c;
  c.scheme = BiasScheme::t5;
  c.heads = 8;
  c.num_buckets = 32;
  c.max_distance = 128;
  c.bidirectional = true;
  return bias_info(name, mutant_spec(name), c, "t5");
}

// 2^(−8(h+1)/H) for every H: the geometric rule applied to a head count that
// is not a power of two. The paper's code (ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py get_slopes) keeps the slopes of the power of
// two below H and interleaves those of the next one instead. For 12 heads
// every slope differs, yet each head still decays with distance and depends
// on j − i only: only the reference values can tell.
class AlibiNaiveSlopes : public AlibiSubject {
 public:
  AlibiNaiveSlopes() : AlibiSubject(alibi_mutant_info("alibi-naive-slopes", 12)) {}

 protected:
  std::vector<double> slopes(int heads) const override {
    std::vector<double> out;
    for (int h = 0; h < heads; ++h) out.push_back(std::exp2(-8.0 * (h + 1) / heads));
    return out;
  }
};

// +slope·|i−j|: the minus lost, so attention is pushed toward far tokens.
class AlibiSignFlipped : public AlibiSubject {
 public:
  AlibiSignFlipped() : AlibiSubject(alibi_mutant_info("alibi-sign-flipped", 8)) {}

 protected:
  double entry(int i, int j, double slope) const override { return slope * std::abs(i - j); }
};

// slope·(j−i) everywhere: the causal form (right for j ≤ i) used in a
// bidirectional encoder without the absolute value, so future keys get a
// bias that grows with their distance.
class AlibiNoAbs : public AlibiSubject {
 public:
  AlibiNoAbs() : AlibiSubject(alibi_mutant_info("alibi-no-abs", 8)) {}

 protected:
  double entry(int i, int j, double slope) const override { return slope * (j - i); }
};

// slope·(i−j): the relative position taken as query − key instead of
// key − query (memory_position and context_position swapped, the classic
// slip of relative-position code). Keys behind the query get a bias that
// grows with their distance; keys ahead still decay.
class AlibiSwappedOffset : public AlibiSubject {
 public:
  AlibiSwappedOffset() : AlibiSubject(alibi_mutant_info("alibi-swapped-offset", 8)) {}

 protected:
  double entry(int i, int j, double slope) const override { return slope * (i - j); }
};

// −slope·j: BLOOM's form (huggingface/transformers modeling_bloom.py
// build_alibi_tensor: slopes times the key's position only). Within one
// softmax row it differs from −slope·|i−j| by a constant, which a causal
// softmax forgives; as a bias matrix it is not relative, and whoever adds it
// to bidirectional logits, compares rows or caches it per offset gets the
// key's absolute position instead.
class AlibiKeyPositionOnly : public AlibiSubject {
 public:
  AlibiKeyPositionOnly() : AlibiSubject(alibi_mutant_info("alibi-key-position-only", 8)) {}

 protected:
  double entry(int, int j, double slope) const override { return -slope * j; }
};

// −slope·|i + (m − n) − j|: queries aligned with the last n keys (the
// KV-cache convention, right when the n queries are the newest of m tokens)
// applied to a request that counts queries and keys both from 0. Each
// matrix is constant along its diagonals, so only two shapes side by side
// show that the bias depends on m − n and not on j − i alone.
class AlibiAlignedToLastKey : public TypedSubject {
 public:
  AlibiAlignedToLastKey() : info_(alibi_mutant_info("alibi-aligned-to-last-key", 8)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix bias(int n, int m, int head) override {
    check_bias_request(info_, n, m, head);
    const double slope = reference::alibi_slopes(info_.bias->heads)[static_cast<size_t>(head)];
    Matrix b(n, m);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) b(i, j) = -slope * std::abs(i + (m - n) - j);
    }
    return b;
  }

 private:
  SubjectInfo info_;
};

// Declares the bottom-right alignment (params.bias.alignment: queries are the
// last n of m keys, as after a KV cache) but computes −slope·|i − j|, query i
// at key i: the declaration and the code disagree whenever n < m.
class AlibiBottomRightComputedTopLeft : public AlibiSubject {
 public:
  AlibiBottomRightComputedTopLeft() : AlibiSubject(bottom_right_info()) {}

 private:
  static SubjectInfo bottom_right_info() {
    SubjectInfo info = alibi_mutant_info("alibi-bottom-right-computed-top-left", 8);
    info.bias->alignment = Alignment::bottom_right;
    info.declared.push_back("params.bias.alignment");
    return info;
  }
};

// A T5 bucket function with one of two slips, otherwise
// huggingface/transformers modeling_t5.py _relative_position_bucket.
enum class T5Slip { log_without_offset, rounded };

int slipped_bucket(Position relative, const BiasConvention& c, T5Slip slip) {
  int buckets = c.num_buckets / 2;  // the mutants are bidirectional
  int bucket = relative > 0 ? buckets : 0;
  const Position distance = relative < 0 ? -relative : relative;
  const int max_exact = buckets / 2;
  if (distance < max_exact) return bucket + static_cast<int>(distance);
  const double scaled = std::log(static_cast<double>(distance) / max_exact) /
                        std::log(static_cast<double>(c.max_distance) / max_exact) * (buckets - max_exact);
  const Position large = slip == T5Slip::log_without_offset ? static_cast<Position>(scaled)
                                                             : max_exact + std::llround(scaled);
  return bucket + static_cast<int>(std::min<Position>(large, buckets - 1));
}

// The logarithmic buckets without the max_exact offset: far distances land
// in the exact buckets of near ones (distance 8 shares bucket 0 with 0).
class T5LogWithoutOffset : public T5BiasSubject {
 public:
  T5LogWithoutOffset() : T5BiasSubject(t5_mutant_info("t5-log-without-offset"), kT5TableSeed) {}

 protected:
  int bucket(Position relative) const override {
    return slipped_bucket(relative, convention(), T5Slip::log_without_offset);
  }
};

// The logarithmic bucket rounded to nearest instead of truncated (torch's
// .to(torch.long) truncates): every log bucket boundary moves, e.g. distance
// 11 joins bucket 9 instead of 8.
class T5BucketRounded : public T5BiasSubject {
 public:
  T5BucketRounded() : T5BiasSubject(t5_mutant_info("t5-bucket-rounded"), kT5TableSeed) {}

 protected:
  int bucket(Position relative) const override { return slipped_bucket(relative, convention(), T5Slip::rounded); }
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::bias_mutants

std::vector<SubjectEntry> bias_mutants() {
  using namespace planted::bias_mutants;
  return {
      entry<AlibiNaiveSlopes>("alibi-naive-slopes",
                              "ALiBi with 12 heads and slopes 2^(−8(h+1)/12): the power-of-two rule where it does not apply"),
      entry<AlibiSignFlipped>("alibi-sign-flipped", "ALiBi +slope·|i−j|: the bias grows with distance"),
      entry<AlibiNoAbs>("alibi-no-abs", "ALiBi slope·(j−i) in a bidirectional form: future keys get a growing bias"),
      entry<AlibiSwappedOffset>("alibi-swapped-offset",
                                "ALiBi slope·(i−j): query − key where key − query was meant, earlier keys gain with distance"),
      entry<AlibiKeyPositionOnly>("alibi-key-position-only",
                                  "ALiBi −slope·j (BLOOM's build_alibi_tensor): the key's position, not the offset"),
      entry<AlibiAlignedToLastKey>("alibi-aligned-to-last-key",
                                   "ALiBi with queries aligned to the last keys (i + m − n): depends on the request's shape"),
      entry<AlibiBottomRightComputedTopLeft>("alibi-bottom-right-computed-top-left",
                                             "ALiBi declaring the bottom-right alignment (a KV cache's) but computing "
                                             "query i at key i"),
      entry<T5LogWithoutOffset>("t5-log-without-offset",
                                "T5 buckets whose log range forgets the max_exact offset (far keys share near buckets)"),
      entry<T5BucketRounded>("t5-bucket-rounded", "T5 buckets with the log bucket rounded instead of truncated"),
  };
}

}  // namespace pecheck

// Planted rotary bugs: each a RopeSubject with one step overridden, judged by
// the "rope" scheme (interleaved, declared dtype as stated).
#include <cmath>

#include "pecheck/subjects/builtin/rope.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"

namespace pecheck {

namespace planted::rope_mutants {  // the file's own names (the planted bugs compile in unity batches)

// The length of the precomputed cos/sin cache in the cache bugs (a common
// max_position_embeddings); the default run verifies positions up to 10000.
constexpr Position kCacheLength = 2048;

SubjectInfo mutant_info(const std::string& name, Dtype dtype = Dtype::float64) {
  return rope_info(name, mutant_spec(name), Layout::interleaved, dtype);
}

// Computes in float32 but stores the angle table in float16 (a half-precision
// buffer for θ): large angles lose their fraction.
class AngleFloat16 : public RopeSubject {
 public:
  AngleFloat16() : RopeSubject(mutant_info("rope-angle-float16", Dtype::float32)) {}

 protected:
  double angle(Position t, double inv_freq, Position length) const override {
    return round_to(Dtype::float16, RopeSubject::angle(t, inv_freq, length));
  }
};

// ω_i = 10000^(-i/d): the "2" of the exponent forgotten. Still a rotation by
// a multiple of t, so no structural claim can see it.
class ExponentIOverD : public RopeSubject {
 public:
  ExponentIOverD() : RopeSubject(mutant_info("rope-exponent-i-over-d")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position) const override {
    std::vector<double> w(static_cast<size_t>(rotary_width / 2));
    for (size_t i = 0; i < w.size(); ++i) {
      w[i] = std::pow(10000.0, -static_cast<double>(i) / static_cast<double>(rotary_width));
    }
    return w;
  }
};

// A 1-based position index: R_{t+1} instead of R_t.
class PositionOffByOne : public RopeSubject {
 public:
  PositionOffByOne() : RopeSubject(mutant_info("rope-position-off-by-one")) {}

 protected:
  double position_used(Position t) const override { return static_cast<double>(t + 1); }
};

// rotate_half(x) = (x_second, x_first), the minus forgotten: each pair is
// multiplied by [[cos, sin], [sin, cos]], which is not a rotation.
class RotateHalfSign : public RopeSubject {
 public:
  RotateHalfSign() : RopeSubject(mutant_info("rope-rotate-half-sign")) {}

 protected:
  double rotate_half_sign() const override { return 1.0; }
};

// Interleaved pairs rotated with a cos/sin table laid out for halves
// (cat(freqs, freqs)): the two entries of a pair turn by different angles.
class LayoutMismatch : public RopeSubject {
 public:
  LayoutMismatch() : RopeSubject(mutant_info("rope-layout-mismatch")) {}

 protected:
  int table_pair(int column, int rotary_width) const override { return column % (rotary_width / 2); }
};

// A cos/sin cache indexed by t mod its length (a ring buffer, or a negative
// index that wraps).
class CacheWrap : public RopeSubject {
 public:
  CacheWrap() : RopeSubject(mutant_info("rope-cache-wrap")) {}

 protected:
  double position_used(Position t) const override { return static_cast<double>(t % kCacheLength); }
};

// A cos/sin cache whose index is clamped to its last row.
class CacheClamp : public RopeSubject {
 public:
  CacheClamp() : RopeSubject(mutant_info("rope-cache-clamp")) {}

 protected:
  double position_used(Position t) const override {
    return static_cast<double>(std::min(t, kCacheLength - 1));
  }
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::rope_mutants

std::vector<SubjectEntry> rope_mutants() {
  using namespace planted::rope_mutants;
  return {
      entry<AngleFloat16>("rope-angle-float16", "rope declaring float32 whose angles t·ω are stored in float16"),
      entry<ExponentIOverD>("rope-exponent-i-over-d", "rope with ω_i = 10000^(-i/d) instead of 10000^(-2i/d)"),
      entry<PositionOffByOne>("rope-position-off-by-one", "rope rotating by (t+1)·ω_i (1-based positions)"),
      entry<RotateHalfSign>("rope-rotate-half-sign", "rope whose rotate_half forgets the minus (not a rotation)"),
      entry<LayoutMismatch>("rope-layout-mismatch", "interleaved pairs rotated with a halves-layout cos/sin table"),
      entry<CacheWrap>("rope-cache-wrap", "rope whose cos/sin cache of 2048 positions is indexed t mod 2048"),
      entry<CacheClamp>("rope-cache-clamp", "rope whose cos/sin cache of 2048 positions clamps t to 2047"),
  };
}

}  // namespace pecheck

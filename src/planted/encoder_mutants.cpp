// Planted bugs in sinusoidal encoders. Each imitates the correct built-in
// (scheme "sinusoidal", interleaved, float64 unless the bug is about precision)
// and carries one mistake of a kind published implementations have made.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/reference/sinusoidal.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/planted/mutants.h"

namespace pecheck {

namespace planted::encoder_mutants {  // the file's own names (the planted bugs compile in unity batches)

// One pair's angle → the row, in a layout; `angle(i)` and `cos_angle(i)` may differ.
template <class Angle, class CosAngle>
void write_pairs(int dim, Layout layout, double* out, Angle angle, CosAngle cos_angle) {
  for (int i = 0; i < (dim + 1) / 2; ++i) {
    out[reference::sin_index(i, dim, layout)] = std::sin(angle(i));
    if (2 * i + 1 < dim) out[reference::cos_index(i, dim, layout)] = std::cos(cos_angle(i));
  }
}

SubjectEntry mutant(std::string name, std::string description, EncoderSubject::Row row,
                    Layout layout = Layout::interleaved, Dtype dtype = Dtype::float64) {
  return {name, std::move(description), [=] {
            SubjectInfo info = encoder_info(name, layout);
            info.spec = mutant_spec(name);
            info.scheme = "sinusoidal";
            info.dtype = dtype;
            return std::make_unique<EncoderSubject>(info, row);
          }};
}

// A table precomputed for this many positions (the ring-buffer cache below).
constexpr Position kCacheRows = 512;

// The rows a rolling cache keeps (the last this many positions of the sequence).
constexpr Position kRollingRows = 64;

// Answers positions t₀, t₀ + 1, … for whatever positions were asked after
// the first t₀: the table sliced as pe[t₀ : t₀ + k], as decoding code that
// assumes contiguous position ids does. One position at a time it is right.
class ContiguousSlice : public EncoderSubject {
 public:
  using EncoderSubject::EncoderSubject;
  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    Positions slice(positions.size());
    for (size_t r = 0; r < slice.size(); ++r) slice[r] = positions.front() + static_cast<Position>(r);
    return EncoderSubject::encode(dim, slice, seq_len);
  }
};

}  // namespace planted::encoder_mutants

std::vector<SubjectEntry> encoder_mutants() {
  using namespace planted::encoder_mutants;
  using reference::frequency;
  return {
      mutant("sinusoidal-cos-next-frequency",
             "the cosine of pair i uses ω_{i+1}: an off-by-one in the frequency index of the cosines",
             [](int dim, Position t, Position, double* out) {
               write_pairs(
                   dim, Layout::interleaved, out, [&](int i) { return static_cast<double>(t) * frequency(i, dim); },
                   [&](int i) { return static_cast<double>(t) * frequency(i + 1, dim); });
             }),
      mutant("sinusoidal-fp16-angles",
             "declares float32 but forms the angle t·ω_i in float16 (a half-precision position tensor)",
             [](int dim, Position t, Position, double* out) {
               auto half = [](double x) { return round_to(Dtype::float16, x); };
               auto single = [](double x) { return round_to(Dtype::float32, x); };
               for (int i = 0; i < (dim + 1) / 2; ++i) {
                 const double angle = half(half(static_cast<double>(t)) * half(frequency(i, dim)));
                 out[2 * i] = single(std::sin(angle));
                 if (2 * i + 1 < dim) out[2 * i + 1] = single(std::cos(angle));
               }
             },
             Layout::interleaved, Dtype::float32),
      {"sinusoidal-contiguous-slice",
       "returns the table slice pe[t₀ : t₀ + k] from the first position asked: later positions are assumed contiguous",
       [] {
         SubjectInfo info = encoder_info("sinusoidal-contiguous-slice", Layout::interleaved);
         info.spec = mutant_spec("sinusoidal-contiguous-slice");
         info.scheme = "sinusoidal";
         return std::make_unique<ContiguousSlice>(info, sinusoidal_row(Layout::interleaved, 1.0));
       }},
      mutant("sinusoidal-sin-cos-swapped", "writes [cos, sin] into each interleaved pair instead of [sin, cos]",
             [](int dim, Position t, Position, double* out) {
               for (int i = 0; i < (dim + 1) / 2; ++i) {
                 const double angle = static_cast<double>(t) * frequency(i, dim);
                 if (2 * i + 1 < dim) {
                   out[2 * i] = std::cos(angle);
                   out[2 * i + 1] = std::sin(angle);
                 } else {
                   out[2 * i] = std::sin(angle);
                 }
               }
             }),
      mutant("sinusoidal-exponent-i-over-d", "frequencies 10000^(-i/d) instead of 10000^(-2i/d)",
             [](int dim, Position t, Position, double* out) {
               auto angle = [&](int i) { return static_cast<double>(t) * std::pow(10000.0, -i / double(dim)); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-base-1000", "frequencies 1000^(-2i/d): the wrong base constant",
             [](int dim, Position t, Position, double* out) {
               auto angle = [&](int i) { return static_cast<double>(t) * std::pow(1000.0, -2.0 * i / dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-off-by-one", "encodes position t + 1 (1-based positions)",
             [](int dim, Position t, Position, double* out) {
               auto angle = [&](int i) { return static_cast<double>(t + 1) * frequency(i, dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-halves-claims-interleaved",
             "computes the concatenated-halves layout [sin… | cos…] but declares interleaved",
             sinusoidal_row(Layout::halves, 1.0)),
      mutant("sinusoidal-from-end",
             "counts positions back from the end of the sequence (N − 1 − t), as for right-aligned batches",
             [](int dim, Position t, Position seq_len, double* out) {
               auto angle = [&](int i) { return static_cast<double>(seq_len - 1 - t) * frequency(i, dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-cache-wraps",
             fmt::format("reads a {}-row precomputed table at position mod {} (a cache that wraps instead of growing)",
                         kCacheRows, kCacheRows),
             [](int dim, Position t, Position, double* out) {
               auto angle = [&](int i) { return static_cast<double>(t % kCacheRows) * frequency(i, dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-rolling-cache-zeros",
             fmt::format("keeps a rolling cache of the last {} positions: earlier positions of a longer sequence come "
                         "back as zeros (the buffer's initial value)",
                         kRollingRows),
             [](int dim, Position t, Position seq_len, double* out) {
               if (t < seq_len - kRollingRows) {
                 std::fill(out, out + dim, 0.0);
                 return;
               }
               auto angle = [&](int i) { return static_cast<double>(t) * frequency(i, dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
             }),
      mutant("sinusoidal-times-sqrt-d",
             "multiplies the encoding by √d as if it were a token embedding, while declaring amplitude 1",
             [](int dim, Position t, Position, double* out) {
               auto angle = [&](int i) { return static_cast<double>(t) * frequency(i, dim); };
               write_pairs(dim, Layout::interleaved, out, angle, angle);
               for (int j = 0; j < dim; ++j) out[j] *= std::sqrt(static_cast<double>(dim));
             }),
  };
}

}  // namespace pecheck

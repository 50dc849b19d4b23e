#include "pecheck/subjects/builtin/encoders.h"

#include <fmt/format.h>

#include <cmath>

#include "pecheck/core/subject_spec.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck {

SubjectInfo encoder_info(std::string name, Layout layout) {
  SubjectInfo info;
  info.spec = builtin_spec(name);
  info.scheme = name;
  info.name = std::move(name);
  info.ops = static_cast<unsigned>(Op::encode);
  info.layout = layout;
  return info;
}

SubjectInfo encoder_info(std::string name, SubjectSpec spec, const EncodeConvention& convention, Dtype dtype,
                         std::optional<Dtype> angles, std::vector<std::string> declared, std::string scheme) {
  SubjectInfo info = encoder_info(std::move(name));
  info.spec = std::move(spec);
  info.scheme = std::move(scheme);
  info.dtype = dtype;
  info.compute.angles = angles;
  info.encode = convention;
  info.amplitude = convention.amplitude;
  info.declared = std::move(declared);
  return info;
}

Matrix EncoderSubject::encode(int dim, const Positions& positions, Position seq_len) {
  if (dim < 1) throw Refusal(fmt::format("dim must be positive, got {}", dim));
  if (even_only_ && dim % 2 != 0) throw Refusal(fmt::format("{} needs an even dim, got {}", info_.name, dim));
  Matrix out(static_cast<Eigen::Index>(positions.size()), dim);
  for (size_t r = 0; r < positions.size(); ++r) {
    row_(dim, positions[r], seq_len, out.row(static_cast<Eigen::Index>(r)).data());
  }
  return out;
}

EncoderSubject::Row sinusoidal_row(const EncodeConvention& convention, Dtype values, Dtype angles) {
  if (values == Dtype::float64 && angles == Dtype::float64) {
    return [convention](int dim, Position t, Position, double* out) {
      const Matrix row = reference::sinusoidal(dim, {t}, convention);
      std::copy(row.data(), row.data() + dim, out);
    };
  }
  return [convention, values, angles](int dim, Position t, Position, double* out) {
    auto v = [values](double x) { return round_to(values, x); };
    auto a = [angles](double x) { return round_to(angles, x); };
    const double position = a(static_cast<double>(t + convention.position_offset));
    const double amplitude = v(convention.amplitude);
    const int pairs = (dim + 1) / 2;
    for (int i = 0; i < pairs; ++i) {
      const double angle = a(position * a(reference::frequency(i, dim, convention)));
      out[reference::sin_index(i, dim, convention.layout)] = v(amplitude * v(a(std::sin(angle))));
      if (2 * i + 1 < dim) out[reference::cos_index(i, dim, convention.layout)] = v(amplitude * v(a(std::cos(angle))));
    }
  };
}

EncoderSubject::Row sinusoidal_row(Layout layout, double amplitude, Dtype dtype) {
  EncodeConvention convention;
  convention.layout = layout;
  convention.amplitude = amplitude;
  return sinusoidal_row(convention, dtype, dtype);
}

namespace {

SubjectEntry reduced_precision(Dtype dtype) {
  const std::string name = fmt::format("sinusoidal@{}", pecheck::name(dtype));
  return {name,
          fmt::format("sinusoidal encoding computed in {} (every operation rounded)", pecheck::name(dtype)),
          [name, dtype] {
            auto info = encoder_info(name, Layout::interleaved);
            info.dtype = dtype;
            info.scheme = "sinusoidal";
            return std::make_unique<EncoderSubject>(info, sinusoidal_row(Layout::interleaved, 1.0, dtype));
          },
          false};
}

// A fixed random table, as a learned embedding looks before (and after)
// training: entries uniform in [-1, 1], the same for a position whatever the
// sequence length, with no structure across positions.
void learned_row(int dim, Position t, Position, double* out) {
  for (int j = 0; j < dim; ++j) {
    gen::FastRandom r(0x5eed0000ULL ^ (static_cast<std::uint64_t>(t) * 0x9e3779b97f4a7c15ULL) ^
                      (static_cast<std::uint64_t>(j) << 32));
    out[j] = r.uniform(-1.0, 1.0);
  }
}

}  // namespace

std::vector<SubjectEntry> encoder_builtins() {
  constexpr double kScaledAmplitude = 0.1;
  return {
      {"sinusoidal", "sinusoidal encoding, interleaved [sin, cos] pairs (the reference)",
       [] { return std::make_unique<EncoderSubject>(encoder_info("sinusoidal", Layout::interleaved),
                                                    sinusoidal_row(Layout::interleaved, 1.0)); }},
      {"sinusoidal-halves", "sinusoidal encoding, concatenated halves [sin… | cos…]",
       [] { return std::make_unique<EncoderSubject>(encoder_info("sinusoidal-halves"),
                                                    sinusoidal_row(Layout::halves, 1.0), true); }},
      {"sinusoidal-scaled", "sinusoidal encoding scaled by amplitude A = 0.1",
       [] {
         auto info = encoder_info("sinusoidal-scaled", Layout::interleaved);
         info.amplitude = kScaledAmplitude;
         return std::make_unique<EncoderSubject>(info, sinusoidal_row(Layout::interleaved, kScaledAmplitude));
       }},
      {"learned", "learned / random table: entries uniform in [-1, 1], no structure",
       [] { return std::make_unique<EncoderSubject>(encoder_info("learned"), learned_row); }},
      {"normalized", "normalized position t/(N-1) broadcast over every dimension",
       [] {
         return std::make_unique<EncoderSubject>(
             encoder_info("normalized"), [](int dim, Position t, Position n, double* out) {
               const double v = n > 1 ? static_cast<double>(t) / static_cast<double>(n - 1) : 0.0;
               std::fill(out, out + dim, v);
             });
       }},
      {"integer", "raw integer position t broadcast over every dimension",
       [] {
         return std::make_unique<EncoderSubject>(
             encoder_info("integer"), [](int dim, Position t, Position, double* out) {
               std::fill(out, out + dim, static_cast<double>(t));
             });
       }},
      reduced_precision(Dtype::float32),
      reduced_precision(Dtype::float16),
      reduced_precision(Dtype::bfloat16),
  };
}

}  // namespace pecheck

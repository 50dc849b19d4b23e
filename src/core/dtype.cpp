#include "pecheck/core/dtype.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace pecheck {

double unit_roundoff(Dtype dtype) {
  switch (dtype) {
    case Dtype::float64: return std::ldexp(1.0, -53);
    case Dtype::float32: return std::ldexp(1.0, -24);
    case Dtype::float16: return std::ldexp(1.0, -11);
    case Dtype::bfloat16: return std::ldexp(1.0, -8);
  }
  return 0;
}

double exact_integer_limit(Dtype dtype) {
  switch (dtype) {
    case Dtype::float64: return std::ldexp(1.0, 53);
    case Dtype::float32: return std::ldexp(1.0, 24);
    case Dtype::float16: return std::ldexp(1.0, 11);
    case Dtype::bfloat16: return std::ldexp(1.0, 8);
  }
  return 0;
}

std::string_view name(Dtype dtype) {
  switch (dtype) {
    case Dtype::float64: return "float64";
    case Dtype::float32: return "float32";
    case Dtype::float16: return "float16";
    case Dtype::bfloat16: return "bfloat16";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view text) {
  if (text == "float64" || text == "double") return Dtype::float64;
  if (text == "float32" || text == "float") return Dtype::float32;
  if (text == "float16" || text == "half") return Dtype::float16;
  if (text == "bfloat16") return Dtype::bfloat16;
  return std::nullopt;
}

namespace {

// Rounds to a binary format with `mantissa_bits` explicit fraction bits and
// exponent range [min_exp, max_exp] (of the normalised value), handling
// subnormals by rounding to a fixed quantum below the normal range.
double round_binary(double x, int mantissa_bits, int min_exp, int max_exp) {
  if (!std::isfinite(x) || x == 0) return x;
  int exp = 0;
  std::frexp(x, &exp);  // x = f * 2^exp, f in [0.5, 1)
  const int e = std::max(exp - 1, min_exp);  // exponent of the leading bit
  const double quantum = std::ldexp(1.0, e - mantissa_bits);
  const double rounded = std::nearbyint(x / quantum) * quantum;  // ties to even
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -mantissa_bits), max_exp);
  if (std::fabs(rounded) > max_finite) return std::copysign(INFINITY, x);
  return rounded;
}

}  // namespace

double round_to(Dtype dtype, double value) {
  switch (dtype) {
    case Dtype::float64: return value;
    case Dtype::float32: return static_cast<double>(static_cast<float>(value));
    case Dtype::float16: return round_binary(value, 10, -14, 15);
    case Dtype::bfloat16: return round_binary(value, 7, -126, 127);
  }
  return value;
}

}  // namespace pecheck

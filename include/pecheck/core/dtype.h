#pragma once
// The precisions a subject may compute in, and their unit roundoff.
#include <optional>
#include <string>
#include <string_view>

namespace pecheck {

enum class Dtype { float64, float32, float16, bfloat16 };

// Unit roundoff u = 2^-p for a p-bit significand (round to nearest).
double unit_roundoff(Dtype dtype);
// Largest integer n such that every integer in [0, n] is representable.
double exact_integer_limit(Dtype dtype);
std::string_view name(Dtype dtype);
std::optional<Dtype> parse_dtype(std::string_view text);

// Rounds a double to the nearest value representable in `dtype`
// (round to nearest even; overflow to infinity). Used by the reduced-precision
// built-in subjects and by planted bugs that compute in the wrong precision.
double round_to(Dtype dtype, double value);

}  // namespace pecheck

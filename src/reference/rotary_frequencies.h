#pragma once
// The rotary frequencies in long double, for the reference rotation: ω_i
// rounded to double first would put an error of |t|·ω_i·2^-53 into every
// angle, as large as a float64 implementation's own.
#include <optional>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/matrix.h"

namespace pecheck::reference::detail {

std::vector<long double> rotary_inv_freq_long(int rotary_width, const RotateConvention& convention,
                                              std::optional<Position> length);
// Refuses position streams that do not match the convention's axes or x's rows.
void check_axes(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention);

}  // namespace pecheck::reference::detail

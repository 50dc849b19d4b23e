// Llama 3 scaling as a newcomer writes it wrong (issue 40): the slips of
// _compute_llama3_parameters that published ports and first attempts make,
// predicted in double so the rotary diagnosis can test each one against the
// re-queried answers instead of calling them "no usual suspect".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/matrix.h"
#include "pecheck/reference/rotary.h"

namespace pecheck::identify {

struct Llama3Slip {
  bool bands_swapped = false;    // the short wavelengths divided by F, the long ones kept
  bool smooth_reversed = false;  // the medium band weighs ω/F by smooth instead of 1 − smooth
  double boundary = 0;           // the L its bands are placed by (0: the declared original length)
};

// The frequencies of the declared llama3 convention computed with `slip`.
std::vector<double> llama3_inv_freq(int rotary_width, const RotateConvention& convention,
                                    std::optional<Position> length, const Llama3Slip& slip);

// The slips worth testing for a declared llama3 scaling, each with its words.
std::vector<std::pair<std::string, Llama3Slip>> llama3_slips(const RopeScaling& declared);

}  // namespace pecheck::identify

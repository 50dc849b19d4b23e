#pragma once
// The 2-D rotary of vision towers (CLAIMS.md §10, rope.axes_2d): a patch at
// (row, column) turns the first half of its pairs by the row and the second
// half by the column (params.rotate.rope_2d; reference::rotary_frequency_index).
#include <memory>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

// Pixtral-12B's vision encoder (mistralai/Pixtral-12B-2409 vision_config:
// head_dim 64 = hidden 1024 / 16 heads, rope_theta 10000; transformers
// models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding: freqs[::2] by
// row, freqs[1::2] by column, applied with rotate_half): even_odd, halves layout.
RotateConvention pixtral_2d();
// The info of a 2-D rotary subject declaring `convention`, in float32.
SubjectInfo rope_2d_info(std::string name, SubjectSpec spec, const RotateConvention& convention, std::string scheme);

std::vector<SubjectEntry> rope_2d_builtins();

}  // namespace pecheck

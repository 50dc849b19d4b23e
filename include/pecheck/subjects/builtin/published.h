#pragma once
// Built-in reference subjects, one per convention that published code ships
// (GPT-J, GPT-NeoX, Llama, Llama 3, the RoPE scalings, tensor2tensor and
// fairseq timing signals). Each is correct and declares its convention as an
// honest version-2 hello would (SubjectInfo::encode / rotate, compute,
// declared); its scheme is its own name.
#include <string>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck {

// The v2 field paths a hello stating the whole convention lists, e.g.
// "params.rotate.base", "params.rotate.scaling.factor", in protocol order.
std::vector<std::string> declared_fields(const RotateConvention& convention);
std::vector<std::string> declared_fields(const EncodeConvention& convention);

std::vector<SubjectEntry> published_builtins();

// The conventions of the 2024–2026 schemes as their models publish them
// (published_schemes.cpp cites each config): Phi-3.5-mini's LongRoPE,
// DeepSeek-V3's YaRN with mscale and its interleave-then-halves layout,
// Qwen2-VL's and Qwen3-VL's multi-axis positions, and Llama 3.1's scaling in
// llama.cpp's freq_factors form.
RotateConvention phi35_longrope();
RotateConvention deepseek_v3_yarn();
RotateConvention qwen2_vl_mrope();
RotateConvention qwen3_vl_mrope();
RotateConvention llama3_freq_factors();

}  // namespace pecheck

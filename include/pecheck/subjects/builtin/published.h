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

}  // namespace pecheck

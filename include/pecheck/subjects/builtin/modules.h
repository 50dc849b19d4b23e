#pragma once
// What the built-in modules (CLAIMS.md §7) share: how a forward request is
// made whole and refused, and how fixed weights are drawn from a seed.
// The modules themselves: modules_encoder.h (encoder layers, with and
// without a learned position table) and modules_llama.h (a Llama block with
// a key/value cache).
#include <cstdint>
#include <vector>

#include "pecheck/gen/fast_random.h"
#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck {

// A forward request with its defaults filled in (SUBJECT-PROTOCOL v2):
// positions 0..N−1 and every token real, where the caller passed none.
struct ForwardRequest {
  Eigen::Index tokens = 0;             // N, the same for every sequence
  std::vector<Positions> positions;    // B × N
  BoolMatrix padding;                  // B × N, true: a real token
  bool real(Eigen::Index b, Eigen::Index r) const { return padding(b, r); }
};

// Fills in the defaults and checks the shapes: x[b] is N×width for every b
// (another width is refused: a Refusal naming the declared one), positions
// (empty, or B rows of N) and padding (0×0, or B×N) agree with x; a shape
// that disagrees is the caller's error (std::invalid_argument).
ForwardRequest forward_request(const SubjectInfo& info, const Batch& x, const std::vector<Positions>& positions,
                               const BoolMatrix& padding);
// Refuses a decode token whose width is not the declared one.
void check_decode_input(const SubjectInfo& info, const Vector& x);

// info for a module: float64, ops forward (| decode), params.forward =
// `convention` (declared: causal, positional, width), judged by `scheme`.
SubjectInfo module_info(std::string name, SubjectSpec spec, const ForwardConvention& convention, bool decodes,
                        std::string scheme);

// Fixed weights: entries uniform in [center − spread, center + spread],
// drawn row by row from `random`.
Matrix draw_matrix(gen::FastRandom& random, Eigen::Index rows, Eigen::Index cols, double spread, double center = 0);
Vector draw_vector(gen::FastRandom& random, Eigen::Index size, double spread, double center = 0);
// A fan_in × fan_out map that keeps a unit variance: spread √(3/fan_in).
Matrix draw_projection(gen::FastRandom& random, Eigen::Index fan_in, Eigen::Index fan_out);

// Whether encoder-layer, learned-encoder and llama-block are columns of the
// default claims matrix (the module.* claims and history_independence);
// the variants (encoder-layer-pre-norm, llama-block-dynamic-ntk) stay out.
inline constexpr bool kModulesInDefaultMatrix = true;

std::vector<SubjectEntry> module_builtins();

}  // namespace pecheck

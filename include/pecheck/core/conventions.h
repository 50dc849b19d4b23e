#pragma once
// What an implementation declares about itself beyond its ops
// (SUBJECT-PROTOCOL.md, version 2): the conventions its reference is
// parameterised by, and the precision of each stage. Real code differs in
// these without being wrong; pecheck judges it against what it declares.
// Every default is the papers' form, so a subject that declares nothing is
// judged as in version 1.
#include <optional>
#include <string_view>

#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"

namespace pecheck {

// Where the (sin, cos) partners of pair i sit: (2i, 2i+1) or (i, i + h).
enum class Layout { unspecified, interleaved, halves };
std::string_view name(Layout layout);
std::optional<Layout> parse_layout(std::string_view text);

// The precision of each stage, each defaulting to the subject's dtype.
struct Compute {
  std::optional<Dtype> angles;      // positions × frequencies and their sin/cos (encode, rotate)
  std::optional<Dtype> accumulate;  // dot products and softmax sums (attention, forward)
};

// The frequency schedule of a sinusoidal encoding, h = d/2 pairs:
// ω_i = base^(−2i/d) (the paper), or base^(−i/(h−1)) (tensor2tensor, fairseq).
enum class Schedule { two_i_over_d, i_over_h_minus_1 };
std::string_view name(Schedule schedule);       // "2i/d", "i/(h-1)"
std::optional<Schedule> parse_schedule(std::string_view text);

// params.encode: p_t is the reference at t + position_offset, times amplitude.
struct EncodeConvention {
  double base = 10000;
  Schedule schedule = Schedule::two_i_over_d;
  Position position_offset = 0;   // fairseq: padding_idx + 1
  double amplitude = 1;
  Layout layout = Layout::unspecified;
};

// RoPE scaling families, each from its published formula.
enum class ScalingType { none, linear, ntk, dynamic_ntk, yarn, llama3 };
std::string_view name(ScalingType type);        // "none", "linear", "ntk", "dynamic_ntk", "yarn", "llama3"
std::optional<ScalingType> parse_scaling_type(std::string_view text);

struct RopeScaling {
  ScalingType type = ScalingType::none;
  double factor = 1;
  Position original_max_position = 0;   // dynamic_ntk, yarn, llama3
  double beta_fast = 32, beta_slow = 1;  // yarn
  double low_freq_factor = 1, high_freq_factor = 4;  // llama3
};

// params.rotate: the first rotary_width(d) features rotate, the rest pass through.
struct RotateConvention {
  double base = 10000;                    // rope_theta
  std::optional<int> rotary_dim;          // a fixed width (GPT-J: 64)
  std::optional<double> rotary_fraction;  // rotary_dim = 2·⌊fraction·d/2⌋ (GPT-NeoX)
  Layout layout = Layout::unspecified;
  RopeScaling scaling;
  // How many features of a d-wide vector rotate.
  int rotary_width(int dim) const;
};

// params.bias: an additive attention-logit bias.
enum class BiasScheme { alibi, t5 };
std::string_view name(BiasScheme scheme);
std::optional<BiasScheme> parse_bias_scheme(std::string_view text);

// How query i lines up with the keys when n ≠ m (SUBJECT-PROTOCOL.md,
// "Attention conventions"): top-left, query i at key i (version 1's
// attention); bottom-right, the last query at the last key (query i at key
// i + m − n: a decoder's queries after a KV cache of m − n keys).
enum class Alignment { top_left, bottom_right };
std::string_view name(Alignment alignment);     // "top_left", "bottom_right"
std::optional<Alignment> parse_alignment(std::string_view text);

struct BiasConvention {
  BiasScheme scheme = BiasScheme::alibi;
  int heads = 1;
  int num_buckets = 32;      // t5
  int max_distance = 128;    // t5
  bool bidirectional = true; // t5
  Alignment alignment = Alignment::top_left;  // the query/key offset of bias(n, m) when n ≠ m
};

// params.forward: which module-level claims apply.
enum class Positional { none, absolute, relative };
std::string_view name(Positional positional);
std::optional<Positional> parse_positional(std::string_view text);

// Where a module's positions come from: the request's `positions` (given),
// or the padding, counted from 0 at the first real token, as transformers
// derives them when position_ids is None (from_padding): the harness then
// does not permute positions independently of tokens, and decode's position
// is advisory (the module counts its own tokens since reset).
enum class PositionsSource { given, from_padding };
std::string_view name(PositionsSource source);  // "given", "from_padding"
std::optional<PositionsSource> parse_positions_source(std::string_view text);

struct ForwardConvention {
  bool causal = false;
  Positional positional = Positional::none;
  int width = 0;             // d of x; 0: not declared
  PositionsSource positions = PositionsSource::given;
};

}  // namespace pecheck

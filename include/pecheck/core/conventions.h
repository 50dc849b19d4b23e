#pragma once
// What an implementation declares about itself beyond its ops
// (SUBJECT-PROTOCOL.md, version 2): the conventions its reference is
// parameterised by, and the precision of each stage. Real code differs in
// these without being wrong; pecheck judges it against what it declares.
// Every default is the papers' form, so a subject that declares nothing is
// judged as in version 1.
#include <optional>
#include <string_view>
#include <vector>

#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"

namespace pecheck {

// Where the (sin, cos) partners of pair i sit: (2i, 2i+1) or (i, i + h).
// interleave_then_halves (rotate only): DeepSeek's apply_rotary_pos_emb_interleave
// reads pair i from (2i, 2i+1), regroups the pairs into halves before rotating,
// and leaves the output in that order: out (i, i + h).
enum class Layout { unspecified, interleaved, halves, interleave_then_halves };
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
enum class ScalingType { none, linear, ntk, dynamic_ntk, yarn, llama3, longrope };
std::string_view name(ScalingType type);  // "none", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope"
std::optional<ScalingType> parse_scaling_type(std::string_view text);

// Which length picks LongRoPE's factor set: the sequence's (transformers:
// seq_len, else max(position) + 1, > L), a position's (vLLM before PR #27431:
// some position > L, one later), or the allocated context's (vLLM after PR
// #27431, llama.cpp: max_position_embeddings > L, fixed for every sequence).
enum class FactorSwitch { length, position, context };
std::string_view name(FactorSwitch rule);  // "length", "position", "context"
std::optional<FactorSwitch> parse_factor_switch(std::string_view text);

struct RopeScaling {
  ScalingType type = ScalingType::none;
  double factor = 1;
  Position original_max_position = 0;   // dynamic_ntk, yarn, llama3, longrope
  double beta_fast = 32, beta_slow = 1;  // yarn
  double low_freq_factor = 1, high_freq_factor = 4;  // llama3
  bool truncate = true;                  // yarn: correction range floored/ceiled (gpt-oss: false)
  std::optional<double> mscale, mscale_all_dim;  // yarn (DeepSeek): m = g(F, mscale) / g(F, mscale_all_dim)
  std::vector<double> short_factor, long_factor;     // longrope: one per pair
  FactorSwitch factor_switch = FactorSwitch::length;  // longrope
  std::optional<double> attention_factor;  // yarn, longrope: the magnitude on cos/sin, when given
};

// Which of the 1-D frequencies ω_i = base^(−2i/r) (r/2 pairs, P = r/2) the
// two axes of a 2-D rotary take (params.rotate.rope_2d.frequencies): pair
// j < P/2 turns by the row at ω_2j in both; pair P/2 + j turns by the column
// at ω_(2j+1) under even_odd (Pixtral: the even frequencies by row, the odd
// by column) or at ω_2j under halves (Qwen2-VL's vision tower: each axis the
// same r/4 frequencies, rows in the first half of the pairs).
enum class Frequencies2d { even_odd, halves };
std::string_view name(Frequencies2d frequencies);  // "even_odd", "halves"
std::optional<Frequencies2d> parse_frequencies_2d(std::string_view text);
struct Rope2d {
  Frequencies2d frequencies = Frequencies2d::even_odd;
  bool columns_first = false;  // axes ["w", "h"]: a request's first position stream is the column
};

// params.rotate: the first rotary_width(d) features rotate, the rest pass through.
struct RotateConvention {
  double base = 10000;                    // rope_theta
  std::optional<int> rotary_dim;          // a fixed width (GPT-J: 64)
  std::optional<double> rotary_fraction;  // rotary_dim = 2·⌊fraction·d/2⌋ (GPT-NeoX)
  Layout layout = Layout::unspecified;
  RopeScaling scaling;
  // The context the model is configured for (Phi-3 keeps it beside
  // rope_scaling): LongRoPE's f = max_position_embeddings / original.
  std::optional<Position> max_position_embeddings;
  std::vector<double> freq_factors;  // per-pair divisors of ω_i (ggml's rope_freqs)
  // Multi-axis positions (Qwen2-VL mrope): pair counts per axis (t, h, w),
  // in sections (chunked) or, mrope_interleaved, round-robin (Qwen3-VL).
  std::vector<int> mrope_section;
  bool mrope_interleaved = false;
  // DeepSeek MLA's decoupled rotary (params.rotate.qk_rope_head_dim /
  // qk_nope_head_dim): a head of nope + rope features whose last rope
  // features rotate (interleaved unless a layout is declared), the first nope
  // passed through; requests are one head wide.
  std::optional<int> qk_rope_head_dim, qk_nope_head_dim;
  bool decoupled() const { return qk_rope_head_dim.has_value(); }
  // 2-D rotary of vision towers (params.rotate.rope_2d): positions (row,
  // column) per row of x; the first half of the pairs turns by the row, the
  // second by the column (reference::rotary_axes).
  std::optional<Rope2d> rope_2d;
  // How many features of a d-wide vector rotate.
  int rotary_width(int dim) const;
  // Whether rotate requests carry one position stream per axis.
  bool multi_axis() const { return !mrope_section.empty(); }
  // The position streams a rotate request carries: mrope's sections, 2 for a
  // 2-D rotary, else 1.
  int position_axes() const {
    return multi_axis() ? static_cast<int>(mrope_section.size()) : rope_2d ? 2 : 1;
  }
  // The number of pairs the declared per-pair lists fix (factors, sections);
  // 0 when none does.
  int fixed_pairs() const;
  // Whether the rotation depends on the sequence length (dynamic NTK, LongRoPE).
  bool length_dependent() const;
};

// Dual chunk attention (DCA: An et al. 2024, "Training-Free Long-Context
// Scaling of Large Language Models", HKUNLP/ChunkLlama; Qwen2.5-1M's
// dual_chunk_attention_config as vLLM runs it:
// vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py
// DualChunkRotaryEmbedding, vllm/attention/backends/dual_chunk_flash_attn.py
// DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func).
// params.attention.dual_chunk: the attention takes queries and keys before
// their rotary and rotates them itself, a key at position j by j mod L
// (L = chunk_size − local_size, the chunk length), a query at p by where the
// key lies: in its own chunk p mod L, in the chunk before min(p mod L + L,
// chunk_size), further back min(2L − 1, chunk_size) (reference::
// dual_chunk_positions). Causal only; the rotary is `rotate`.
struct DualChunk {
  Position chunk_size = 0;
  Position local_size = 0;
  // Past it vLLM scales the keys by a factor of the sequence length
  // (DualChunkFlashAttentionImpl.forward); pecheck's reference does not
  // model that factor and refuses longer requests.
  std::optional<Position> original_max_position_embeddings;
  RotateConvention rotate;
  Position chunk_len() const { return chunk_size - local_size; }
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

// Which key/value head a query head reads (H query heads, G kv heads, H/G
// per group): repeat_interleave, kv head ⌊h/(H/G)⌋ (torch's repeat_kv, the
// default); tile, kv head h mod G (a Tile of the kv heads: [h0, h1, h0, h1]).
enum class Grouping { repeat_interleave, tile };
std::string_view name(Grouping grouping);       // "repeat_interleave", "tile"
std::optional<Grouping> parse_grouping(std::string_view text);

// What a query row with no visible key gets: a refusal of the request, or a
// zero row (PyTorch's SDPA math path, flash-attention's convention).
enum class FullyMasked { refuse, zeros };
std::string_view name(FullyMasked policy);      // "refuse", "zeros"
std::optional<FullyMasked> parse_fully_masked(std::string_view text);

// params.attention (and the same fields in params.forward), SUBJECT-PROTOCOL.md
// "Attention conventions". Each field left out is version 1's attention: one
// head, scale 1/√d_head, no window, chunk, cap or sinks, top-left alignment.
struct AttentionConvention {
  std::optional<int> heads;         // H: multi-head requests carry H query heads
  std::optional<int> kv_heads;      // G (default H), dividing H
  Grouping grouping = Grouping::repeat_interleave;
  std::optional<Position> window;   // W: query i sees keys j with i − W < j ≤ i (causal mask only)
  std::optional<Position> chunk;    // C: query i sees keys j ≤ i with ⌊j/C⌋ = ⌊i/C⌋ (causal mask only)
  std::optional<double> softcap;    // c: logits s → c·tanh(s/c), before the mask
  bool sinks = false;               // learned per-head sink logits join every softmax
  std::vector<double> sink_logits;  // σ_h, one per query head (with sinks)
  std::optional<double> scale;      // the logit scale; default 1/√d_head
  std::optional<Alignment> alignment;       // when n ≠ m; default top_left
  std::optional<FullyMasked> fully_masked;  // default: refuse (the harness sends none)
  // params.attention.poison_invariance: keys and values that no query can
  // reach (the mask, window, chunk, padding or cache length hides them) may
  // hold NaN or ±1e30, uninitialised cache memory (vLLM PR #30887); only then
  // does pecheck send such values there (attention.poison_invariance).
  bool poison_invariance = false;
  // Qwen2.5-1M's dual chunk attention (DualChunk above): queries and keys
  // arrive unrotated and are rotated at remapped positions per key chunk.
  std::optional<DualChunk> dual_chunk;

  int query_heads() const { return heads.value_or(1); }
  int key_heads() const { return kv_heads.value_or(query_heads()); }
  // The kv head query head h of H reads, G kv heads, under `grouping`.
  static int kv_head_of(int h, int query_heads, int key_heads, Grouping grouping);
  // The logit scale for heads of width d_head.
  double scale_for(Eigen::Index d_head) const;
  // The key position query i of n sits at among m keys.
  Position offset(Eigen::Index n, Eigen::Index m) const;
  Alignment aligned() const { return alignment.value_or(Alignment::top_left); }
  FullyMasked masked_policy() const { return fully_masked.value_or(FullyMasked::refuse); }
  // Whether a causal request lets query i (of n) see key j (of m) under the
  // alignment, window and chunk.
  bool causal_sees(Eigen::Index i, Eigen::Index j, Eigen::Index n, Eigen::Index m) const;
  // Whether anything beyond version 1's attention is declared.
  bool any() const;
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
// Llama 4's attention temperature on NoPE layers (params.forward.layers[i]
// attn_temperature_tuning with attn_scale and floor_scale): the query at
// position p is scaled by 1 + attn_scale·ln(⌊(p + 1)/floor_scale⌋ + 1)
// (reference::query_temperature).
struct TemperatureTuning {
  double attn_scale = 0.1;
  double floor_scale = 8192;
};

// One layer's positional settings in params.forward.layers: a rotary
// convention, or none (a NoPE layer: queries and keys are not rotated), and
// its queries' temperature tuning when declared.
// A layer's attention (params.forward.layers[k].window / .chunk, or from the
// model config's layer_types): a sliding window W, a chunk C, or neither
// (full causal attention where a model config declared the layers).
struct LayerConvention {
  std::optional<RotateConvention> rotate;
  std::optional<TemperatureTuning> temperature_tuning;
  std::optional<Position> window;
  std::optional<Position> chunk;
};

struct ForwardConvention {
  bool causal = false;
  Positional positional = Positional::none;
  int width = 0;             // d of x; 0: not declared
  PositionsSource positions = PositionsSource::given;
  std::vector<LayerConvention> layers;  // per-layer settings (module.layer_schedule); empty: not declared
  // The module's attention (SUBJECT-PROTOCOL.md: the fields of
  // params.attention may stand in params.forward).
  AttentionConvention attention;
  bool segments = false;            // forward accepts `segments` (packed documents)
  bool cache_capacity = false;      // reset accepts `capacity` (the allocated cache length)
  bool multi_token_decode = false;  // decode accepts k tokens at once (x k×d, positions k)
};

}  // namespace pecheck

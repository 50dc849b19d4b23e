// The claims table: every claim of CLAIMS.md as data, one row each, in
// catalog order — id, the statement, its sources, the op a subject needs,
// and the expectation for a correct implementation of the reference. The
// family is the id's prefix. The per-scheme exceptions live in
// expectations.cpp; the implementations in the family files, joined by id in
// registry.cpp.
#include "pecheck/property/registry.h"

namespace pecheck {

namespace {
constexpr const char* kAttentionSources = "000_f295c35facaf76cb.txt, 003_3eecc86811d96425.txt";
constexpr const char* kPeSources = "001_2a828f9fd478cad3.txt, 003_3eecc86811d96425.txt, 004_188869e7d8bec090.txt";
constexpr const char* kRopeSources = "CLAIMS.md §3 (the rotary form most models use today; no seed document)";
constexpr const char* kDeclaredSources =
    "CLAIMS.md §5 (implementations as people ship them; SUBJECT-PROTOCOL v2 declared conventions)";
constexpr const char* kCombineSources = "002_06afe167485a615a.txt, 001_2a828f9fd478cad3.txt";
constexpr const char* kBiasSources = "CLAIMS.md §6 (ALiBi: Press et al.; T5: Raffel et al.; no seed document)";
constexpr const char* kModuleSources = "CLAIMS.md §7 (whole modules and their caches; no seed document)";
constexpr const char* kSchemeSources =
    "CLAIMS.md §9 (positional schemes of 2024–2026 models: LongRoPE, YaRN with mscale, multi-axis, per-layer)";
constexpr const char* kSection10Sources =
    "CLAIMS.md §10 (what a model's config implies, layer by layer: MLA, 2-D rotary, temperature tuning, poisoned "
    "caches, attention by value)";
constexpr const char* kGradSources =
    "CLAIMS.md §11 (gradients: Liger-Kernel #1373, PyTorch #196678; the backward op of SUBJECT-PROTOCOL.md)";
constexpr const char* kModernSources =
    "CLAIMS.md §8 (the attention of 2024–2026 models, declared in params.attention / params.forward)";
}  // namespace

const std::vector<ClaimRow>& claim_table() {
  static const std::vector<ClaimRow> rows = {
      {"attention.permutation_equivariance", Op::attention, Expect::holds, kAttentionSources,
       "self-attention without PE: Attn(PX) = P·Attn(X) (projections Wq, Wk, Wv applied row-wise)"},
      {"attention.kv_permutation_invariance", Op::attention, Expect::holds, kAttentionSources,
       "permuting the key and value rows together leaves the output unchanged"},
      {"attention.query_permutation_equivariance", Op::attention, Expect::holds, kAttentionSources,
       "permuting the query rows permutes the output rows the same way"},
      {"attention.causal_permutation_equivariance", Op::attention, Expect::violated, kAttentionSources,
       "the same equivariance with a causal mask: false, some permutation changes more than the row order"},
      {"attention.permutation_equivariance_with_pe", Op::attention, Expect::violated, kAttentionSources,
       "the same equivariance once a sinusoidal PE is added to X (tokens permuted, positions kept): false, the output changes beyond a reordering"},
      {"attention.logit_sum_invariance", Op::logits, Expect::holds, kAttentionSources,
       "the sum of all logits Σ_ij h_ij is unchanged when the tokens are permuted, with or without PE (a linear aggregate is blind to order; this is why the softmax non-linearity matters)"},
      {"attention.logit_decomposition", Op::logits, Expect::holds, kAttentionSources,
       "with x_i = x'_i + p_i: h_ij = x'_iᵀA x'_j + x'_iᵀA p_j + p_iᵀA x'_j + p_iᵀA p_j, A = W_qᵀW_k (eq. 9 of 000)"},
      {"attention.convex_combination", Op::attention, Expect::holds, kAttentionSources,
       "every output row is a convex combination of value rows: each column lies within the values' min and max, each row's weights are >= 0 and sum to 1, and ‖y_i‖ <= max_j ‖v_j‖ (false by design under declared sinks: the sink takes a share of each row's weight)",
       true, nullptr, "attention.sinks"},
      {"attention.softmax_stability", Op::attention, Expect::holds, kAttentionSources,
       "finite output for any finite logits, however large; adding a constant to one row of logits leaves that row's output unchanged (false by design under a declared softcap, which saturates, or sinks, whose logit does not move)",
       true, nullptr, "attention.softcap or attention.sinks"},
      {"attention.padding_mask_isolation", Op::attention, Expect::holds, kAttentionSources,
       "keys/values that are masked out have no influence on the output"},
      {"pe.bounded", Op::encode, Expect::holds, kPeSources,
       "every component lies in [-1, 1] (times the amplitude, for a scaled encoding), even for enormous sequence lengths"},
      {"pe.constant_norm", Op::encode, Expect::holds, kPeSources,
       "‖p_t‖² = A²·d/2 for every position t (even d; A = 1 for the reference)"},
      {"pe.offset_only_dot", Op::encode, Expect::holds, kPeSources,
       "p_t·p_{t+k} depends on the offset k only (= A²·Σ_i cos(k·ω_i)): the same for every t and every sequence length"},
      {"pe.dot_symmetry", Op::encode, Expect::holds, kPeSources,
       "p_t·p_{t+k} = p_t·p_{t-k}"},
      {"pe.linear_shift", Op::encode, Expect::holds, kPeSources,
       "there is a matrix M_k, independent of t, with p_{t+k} = M_k p_t; it is orthogonal (2×2 rotations by k·ω_i) and M_a M_b = M_{a+b} — fitted on more positions than dimensions, so that a lookup table cannot pass by accident"},
      {"pe.length_independence", Op::encode, Expect::holds, kPeSources,
       "the encoding of position t is the same whatever the sequence length"},
      {"pe.distinct_positions", Op::encode, Expect::holds, kPeSources,
       "positions in [0, L) get pairwise distinct encodings"},
      {"pe.step_size", Op::encode, Expect::holds, kPeSources,
       "‖p_{t+1} − p_t‖ is the same for every t; pair i moves by exactly A·2·sin(ω_i/2) at every t, ω_i its "
       "frequency (which shrinks along the dimensions); judged with the declared amplitude and error model, while a "
       "frequency other than the declared one is pe.reference_values' to name"},
      {"pe.reference_values", Op::encode, Expect::holds, kPeSources,
       "matches the reference formula p_t[2i] = A·sin((t + offset)·ω_i), p_t[2i+1] = A·cos((t + offset)·ω_i) under "
       "the declared convention (base, schedule 2i/d or i/(h-1), position offset, amplitude, layout; the paper's "
       "form where none is declared), with a diagnosis of a mismatch; for the paper's form, d = 16: p_5·p_6 = "
       "p_105·p_106 = 7.4852, p_5·p_10 = 6.1370 (4 decimals, as published in 003)", false},
      {"rope.relative_dot", Op::rotate, Expect::holds, kRopeSources,
       "(R_m q)·(R_n k) depends on n − m only (on the rotated block, in one sequence for a dynamic scaling)"},
      {"rope.norm_preservation", Op::rotate, Expect::holds, kRopeSources,
       "‖R_t x‖ = ‖x‖ on the rotated block (m·‖x‖ under YaRN's attention factor m)"},
      {"rope.identity_at_zero", Op::rotate, Expect::holds, kRopeSources,
       "R_0 x = x on the rotated block (m·x under YaRN)"},
      {"rope.composition", Op::rotate, Expect::holds, kRopeSources,
       "R_a R_b x = R_{a+b} x on the rotated block (m·R_{a+b} x under YaRN)"},
      {"combine.add_subsumes_concat", Op::combine, Expect::holds, kCombineSources,
       "for any split d = d_t + d_p and any weights, adding the token zero-padded into the first d_t coordinates and the position into the last d_p gives exactly the concatenation (x + 0 = x), also through a linear projection and through attention"},
      {"combine.concat_linear_split", Op::combine, Expect::holds, kCombineSources,
       "W[x; p] = W_x x + W_p p"},
      {"combine.orthogonal_recovery", Op::combine, Expect::holds, kCombineSources,
       "when token and position embeddings lie in orthogonal subspaces, projecting x + p onto the token subspace recovers x"},
      {"combine.add_injective", Op::combine, Expect::violated, kCombineSources,
       "adding is injective on (token, position) pairs: false in general, two different pairs can add to the same vector"},
      {"combine.concat_injective", Op::combine, Expect::holds, kCombineSources,
       "concatenation of injective token and position embeddings is injective"},
      // §5: judged against the declared convention.
      {"rope.reference_values", Op::rotate, Expect::holds, kDeclaredSources,
       "R_t x equals the declared reference rotation (base, schedule, rotary width, layout, direction, scaling) on "
       "the rotated block: an identity map, a wrong base (1000 for 10000), exponent i/d, an inverse rotation, a "
       "partial rotary declared full or a wrong scaling formula fail here, with a diagnosis of which; also judged "
       "against LongRoPE (short/long factor lists, the switch at the original length, the attention factor), YaRN "
       "with mscale/mscale_all_dim, per-pair freq_factors, multi-axis positions (mrope sections, chunked or "
       "interleaved) and the interleave-then-halves layout (CLAIMS.md §9)",
       false},
      {"rope.pass_through", Op::rotate, Expect::holds, kDeclaredSources,
       "features at and beyond rotary_dim (or 2·⌊fraction·d/2⌋) are returned unchanged, exactly", true,
       "rotate.partial"},
      {"rope.distinct_positions", Op::rotate, Expect::holds, kDeclaredSources,
       "R_t x ≠ R_s x for t ≠ s up to the tested maximum position, at the declared angle precision: positions that "
       "collapse (angles computed in bfloat16 beyond 256) fail, naming the precision and the largest position that "
       "stays distinct"},
      {"rope.factor_switch", Op::rotate, Expect::holds, kSchemeSources,
       "LongRoPE: short factors while the sequence is at most original_max_position_embeddings; a sequence that grows "
       "past it is answered with the long factors for every position, its first positions too (no mix of a "
       "short-factor cache and long-factor queries: vLLM #27414)",
       false, "rotate.scaling=longrope"},
      {"rope.axis_independence", Op::rotate, Expect::holds, kSchemeSources,
       "multi-axis positions (mrope_section, chunked or interleaved): changing one axis's position of a row changes "
       "only that axis's feature pairs of that row, each turned by Δt·ω_i",
       true, "rotate.multi_axis"},
      {"attention.causal_no_lookahead", Op::attention, Expect::holds, kDeclaredSources,
       "with mask causal, output row i is unchanged when any key or value row j > i changes; and causal gives the "
       "same output as the lower-triangular boolean mask"},
      // §6–7: applies_when (property/applicability.h) says which declared
      // conventions a claim needs; history_independence is over every op
      // (its row's op is only the one listed first in reports).
      {"bias.offset_only", Op::bias, Expect::holds, kBiasSources,
       "b[i][j] depends on j − i only (relative position)"},
      {"bias.reference_values", Op::bias, Expect::holds, kBiasSources,
       "equals the declared scheme: ALiBi −slope_h·|i−j| with the published slopes (geometric 2^(−8h/H), and the "
       "closest-power-of-two rule for H not a power of two); T5: b[i][j] = b[i'][j'] exactly when j − i and j' − i' "
       "fall in the same bucket (exact below num_buckets/2 or its half when bidirectional, logarithmic up to "
       "max_distance)",
       false, "bias.scheme=alibi|t5"},
      {"bias.monotone_decay", Op::bias, Expect::holds, kBiasSources,
       "ALiBi: the bias does not increase with distance |i−j|", true, "bias.scheme=alibi"},
      {"module.permutation_equivariance", Op::forward, Expect::holds, kModuleSources,
       "positional: none, not causal: permuting the tokens of a sequence permutes the output rows the same way", true,
       "forward.positional=none and !forward.causal"},
      {"module.absolute_position_sensitivity", Op::forward, Expect::violated, kModuleSources,
       "positional: absolute or relative: some permutation of the tokens changes more than the row order (the PE is "
       "really used)",
       true, "forward.positional=absolute|relative"},
      {"module.causality", Op::forward, Expect::holds, kModuleSources,
       "causal: true: output row i is unchanged when any token j > i changes (no look-ahead, through every layer)", true,
       "forward.causal"},
      {"module.padding_invariance", Op::forward, Expect::holds, kModuleSources,
       "the real tokens' outputs are the same with and without pad tokens, on the left and on the right, with the "
       "positions the padding implies"},
      {"module.shift_invariance", Op::forward, Expect::holds, kModuleSources,
       "positional: relative: adding a constant k to every position leaves the output unchanged", true,
       "forward.positional=relative and forward.positions=given"},
      {"module.batch_invariance", Op::forward, Expect::holds, kModuleSources,
       "a sequence's output does not depend on the other sequences in its batch, nor on its index in it"},
      {"module.incremental_decoding", Op::decode, Expect::holds, kModuleSources,
       "decode step by step (the subject's own cache) gives the same rows as one forward over the whole sequence, "
       "from any reset",
       true, "op:forward and op:decode"},
      {"module.layer_schedule", Op::rotate, Expect::holds, kSchemeSources,
       "declared per-layer positional settings (params.forward.layers: e.g. local layers base 10⁴ unscaled, global "
       "layers base 10⁶ linear ×8; NoPE layers) are honoured: asked for layer k (rotate or forward with \"layer\": k), "
       "the module answers as layer k's reference — a NoPE layer leaves queries and keys unrotated and ignores "
       "positions",
       false, "op:rotate|forward and forward.layers"},
      {"history_independence", Op::decode, Expect::holds, kModuleSources,
       "for every op: the answer to a request does not depend on the requests before it (caches keyed wrong, a "
       "cache grown and never shrunk, a sequence-length-dependent base left behind) — a RapidCheck state-machine "
       "test over request sequences, the answers compared with those of a freshly started subject",
       false, "op:encode|attention|rotate|bias|forward|decode and restartable"},
      // §8: each convention's own claim, on subjects that declare it.
      {"attention.gqa_grouping", Op::attention, Expect::holds, kModernSources,
       "with heads H and kv_heads G, query head h attends with key/value head ⌊h/(H/G)⌋ (repeat_interleave; h mod G "
       "when tile is declared): changing kv head g changes exactly the query heads of its group (onnx PR #7274)",
       true, "attention.heads"},
      {"attention.window_no_lookback", Op::attention, Expect::holds, kModernSources,
       "with window W: causal output row i is unchanged when any key/value row j ≤ i − W changes, and does change for "
       "a change at j = i − W + 1 (W keys including i itself; transformers #29623, vLLM #3385, mlx-lm PR #390)",
       true, "attention.window"},
      {"attention.chunk_isolation", Op::attention, Expect::holds, kModernSources,
       "with chunk C: causal row i sees only keys j with ⌊j/C⌋ = ⌊i/C⌋ and j ≤ i — unchanged when another key changes, "
       "changed when one of those does (Llama 4 chunked attention)",
       true, "attention.chunk"},
      {"attention.softcap_bound", Op::attention, Expect::holds, kModernSources,
       "with softcap c: every pre-mask logit is c·tanh(s/c) — two queries whose raw logits differ only beyond the "
       "cap's saturation get the same weights, and the weights are the softmax of the capped logits (sglang #33915, "
       "vllm-metal #665)",
       true, "attention.softcap"},
      {"attention.sink_mass", Op::attention, Expect::holds, kModernSources,
       "with learned sinks σ_h: the weights over real keys sum to 1 − e^{σ_h}/(e^{σ_h} + Σ_j e^{s_j}) — m/(e^{σ_h} + "
       "m) when every logit is 0 — and every output is that fraction of a convex combination (GPT-OSS)",
       true, "attention.sinks"},
      {"attention.alignment", Op::attention, Expect::holds, kModernSources,
       "with n queries and m ≥ n keys under a causal mask: bottom_right aligns query i with key i + m − n (a KV cache), "
       "top_left with key i; each query sees its aligned key and nothing after it, windows and chunks counted from it "
       "(mlx #2835, executorch #22426)",
       true, "attention.alignment"},
      {"attention.fully_masked_rows", Op::attention, Expect::holds, kModernSources,
       "a query row whose keys are all masked gets the declared policy — a zero row (zeros) or a refusal (refuse) — "
       "never NaN or Inf (pytorch #110213)",
       true, "attention.fully_masked"},
      {"module.multi_token_decode", Op::decode, Expect::holds, kModernSources,
       "decode of k tokens in one call (speculative verification, chunked prefill) gives the rows of k single-token "
       "steps and of one forward over the sequence",
       true, "op:forward and op:decode and forward.multi_token_decode"},
      {"module.packed_sequences", Op::forward, Expect::holds, kModernSources,
       "documents packed into one sequence, each with its own positions from 0 and a block-diagonal (causal) mask, "
       "give the rows each document gives alone, one-token documents included (ms-swift PR #9904)",
       true, "forward.segments"},
      {"module.cache_capacity", Op::decode, Expect::holds, kModernSources,
       "the rows do not depend on the allocated cache length: the same decode requests after resets with two "
       "capacities give the same answers (llama.cpp #24823)",
       true, "op:decode and forward.cache_capacity"},
      // §10: what a model's config implies, layer by layer.
      {"attention.reference_values", Op::attention, Expect::holds, kSection10Sources,
       "the output of attention equals the float64 reference of every declared convention (scale, soft-cap and its "
       "place before the mask, sinks, window, chunk, grouping, alignment), entry by entry within the error model; "
       "cases include masked rows whose visible logits saturate the cap (Gemma 2: a cap after the mask leaks the "
       "masked keys) and tied keys, and a key hidden from a query carries no weight there, exactly",
       false, "attention.referenced"},
      {"rope.decoupled", Op::rotate, Expect::holds, kSection10Sources,
       "with qk_rope_head_dim r and qk_nope_head_dim (DeepSeek-V2/V3 MLA): the last r features of a head rotate as "
       "the declared reference (interleaved unless another layout is declared), the first qk_nope_head_dim pass "
       "through unchanged, exactly",
       false, "rotate.decoupled"},
      {"attention.temperature_tuning", Op::forward, Expect::holds, kSection10Sources,
       "with attn_temperature_tuning (Llama 4 NoPE layers, params.forward.layers[k]): the query at position p is "
       "scaled by 1 + attn_scale·ln(⌊(p + 1)/floor_scale⌋ + 1): asked for layer k, a row answers the same at every "
       "position below floor_scale − 1 and within each step, and differently across each multiple",
       false, "forward.temperature_tuning"},
      {"rope.axes_2d", Op::rotate, Expect::holds, kSection10Sources,
       "with rope_2d (Pixtral, Qwen2-VL's vision tower): positions (row, column) per row; the first half of the pairs "
       "turns by the row and the second by the column at the declared frequencies (even_odd: Pixtral's freqs[::2] "
       "and freqs[1::2]; halves: one set for both), as the float64 2-D reference, and a logit depends only on "
       "(Δrow, Δcol)",
       false, "rotate.axes_2d"},
      {"module.window_no_lookback", Op::forward, Expect::holds, kSection10Sources,
       "with a window W on the module's attention (params.forward.window, or the config's sliding_window): for one "
       "attention layer (forward with \"layer\" where layers are declared), output row i is unchanged when any token "
       "j ≤ i − W changes and changes for a change at j = i − W + 1; over L windowed layers nothing before "
       "i − L·(W − 1) reaches row i (mlx-lm PR #390, transformers #37574, #39408, onnxruntime PR #25927)",
       true, "forward.window"},
      {"module.config_conformance", Op::forward, Expect::holds, kSection10Sources,
       "a module checked with its model config (params.model, --model-config) answers, layer by layer (forward and "
       "rotate with \"layer\"), as the config's reading: each layer's rotary base / scaling / rotary dim or NoPE, "
       "and its attention kind — a sliding layer sees its window and nothing before, a full layer every earlier "
       "token (vLLM #49795, #51756, PR #29111; Gemma 3, Cohere 2, GPT-OSS, Llama 4)",
       true, "op:forward and forward.layers and model"},
      {"module.chunk_isolation", Op::forward, Expect::holds, kSection10Sources,
       "with a chunk C on the module's attention (params.forward.chunk, a layer's chunk, or the config's "
       "attention_chunk_size): for one layer, row i depends only on the tokens j ≤ i of its own chunk, "
       "⌊j/C⌋ = ⌊i/C⌋ (Llama 4)",
       true, "forward.chunk"},
      {"rope.position_domain", Op::rotate, Expect::holds, kSection10Sources,
       "every position below the declared or configured max_position_embeddings is answered with the reference "
       "values: no table end, no wrap, no second application of a factor (vLLM PR #56446) — positions drawn across "
       "[0, P), its top and the table sizes first",
       false, "rotate.max_position and model"},
      {"attention.poison_invariance", Op::attention, Expect::holds, kSection10Sources,
       "with poison_invariance (paged or rolling caches whose unused slots are uninitialised memory): keys and values "
       "that no query can reach (hidden by the causal mask with n ≠ m under the declared alignment, the window, the "
       "chunk, or a padding mask) holding NaN or ±1e30 leave every output finite and equal, within the error model, "
       "to the answer with those rows clean (vLLM PR #30887: V blocks outside the window not masked, NaN·0 = NaN)",
       true, "attention.poison_invariance"},
      {"module.context_shift", Op::rotate, Expect::holds, kSection10Sources,
       "with context_shift (params.rotate or params.forward): cached keys rotated at p and re-rotated by Δ (rotate "
       "with \"shift\": Δ, and \"layer\": k where layers are declared) answer as the keys rotated at p + Δ, "
       "R(p + Δ)·R(p)⁻¹ x, each layer with its own base and scaling (llama.cpp PR #12373: the global base on Gemma "
       "3's local layers) — Δ small, negative, large and past max_position_embeddings; a shift of 0 leaves the keys",
       true, "op:rotate and context_shift"},
      // §11: gradients (the backward op, params.backward.of).
      {"grad.reference_values", Op::backward, Expect::holds, kGradSources,
       "the vector–Jacobian products of rotate, attention and a reference module's forward (w.r.t. every input the "
       "op takes) equal the float64 reference's, within the error model of the declared dtypes",
       false, "backward.referenced"},
      {"grad.rotary_inverse", Op::backward, Expect::holds, kGradSources,
       "the backward of a rotation is the inverse rotation of the upstream gradient (grad_x = R(−θ)·g), pair by pair "
       "in the declared layout: the subject's own rotation of grad_x gives m²·g back",
       true, "backward.of=rotate and op:rotate"},
      {"grad.causality", Op::backward, Expect::holds, kGradSources,
       "causal attention and causal modules: the gradient of output row i w.r.t. keys and values (tokens) j that row "
       "i does not see (j > i, or outside a declared window or chunk) is exactly zero",
       true, "backward.causal"},
      {"grad.finite", Op::backward, Expect::holds, kGradSources,
       "gradients are finite wherever the forward's answer is, including fully masked rows under the declared "
       "policy and lengths at tile remainders (n mod 64, n mod 128; PyTorch #196678)",
       true, "backward.of=attention"},
      {"grad.permutation_equivariance", Op::backward, Expect::holds, kGradSources,
       "attention without positions: permuting queries permutes grad_q alike; permuting keys and values together "
       "permutes grad_k and grad_v alike",
       true, "backward.of=attention"},
  };
  return rows;
}

}  // namespace pecheck

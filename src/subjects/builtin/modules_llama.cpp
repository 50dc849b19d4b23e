#include "pecheck/subjects/builtin/modules_llama.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/modules.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/reference/vjp.h"

namespace pecheck {

SubjectInfo llama_block_info(std::string name, SubjectSpec spec, const LlamaBlockOptions& options, std::string scheme) {
  SubjectInfo info = module_info(std::move(name), std::move(spec), {true, Positional::relative, options.width}, true,
                                 std::move(scheme));
  if (options.scaling.type != ScalingType::none) {
    info.ops |= static_cast<unsigned>(Op::rotate);
    info.rotate.base = options.base;
    info.rotate.layout = Layout::halves;
    info.rotate.scaling = options.scaling;
    info.declared.insert(info.declared.end(),
                         {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type",
                          "params.rotate.scaling.factor", "params.rotate.scaling.original_max_position"});
  }
  ForwardConvention& forward = *info.forward;
  forward.attention = options.attention;
  forward.attention.heads = options.heads;
  forward.attention.kv_heads = options.key_heads();
  forward.segments = forward.cache_capacity = forward.multi_token_decode = true;
  info.declared.insert(info.declared.end(), {"params.forward.heads", "params.forward.kv_heads",
                                             "params.forward.segments", "params.forward.cache_capacity",
                                             "params.forward.multi_token_decode"});
  if (options.offers_attention) {
    info.ops |= static_cast<unsigned>(Op::attention);
    info.attention = forward.attention;
    info.attention.alignment = Alignment::bottom_right;
    info.attention.fully_masked = FullyMasked::zeros;
    info.multi_head = true;
    info.declared.insert(info.declared.end(), {"params.attention.heads", "params.attention.kv_heads",
                                               "params.attention.alignment", "params.attention.fully_masked"});
    const AttentionConvention& a = info.attention;
    if (a.window) info.declared.push_back("params.attention.window");
    if (a.softcap) info.declared.push_back("params.attention.softcap");
    if (a.sinks) info.declared.insert(info.declared.end(), {"params.attention.sinks", "params.attention.sink_logits"});
    if (a.scale) info.declared.push_back("params.attention.scale");
  }
  if (options.answers_backward) {
    info.ops |= static_cast<unsigned>(Op::backward);
    info.backward_of = static_cast<unsigned>(Op::forward);
    info.declared.push_back("params.backward.of");
  }
  const AttentionConvention& a = forward.attention;
  if (a.window) info.declared.push_back("params.forward.window");
  if (a.softcap) info.declared.push_back("params.forward.softcap");
  if (a.sinks) info.declared.insert(info.declared.end(), {"params.forward.sinks", "params.forward.sink_logits"});
  if (a.scale) info.declared.push_back("params.forward.scale");
  std::sort(info.declared.begin(), info.declared.end());
  return info;
}

LlamaBlockOptions mistral_block_options() {
  LlamaBlockOptions o;
  o.kv_heads = 2;
  o.attention.window = 4;
  o.rolling_buffer = true;
  o.offers_attention = true;
  o.seed = 0x3157A1;
  return o;
}

LlamaBlockOptions llama_gqa_block_options() {
  LlamaBlockOptions o;
  o.kv_heads = 2;
  o.offers_attention = true;
  o.seed = 0x11A3A3;
  return o;
}

LlamaBlockOptions gemma2_block_options() {
  LlamaBlockOptions o;
  o.kv_heads = 2;
  o.attention.softcap = 50;   // attn_logit_softcapping
  o.attention.scale = 0.0625; // query_pre_attn_scalar 256: 256^(−1/2)
  o.offers_attention = true;
  o.seed = 0x6E3A2;
  return o;
}

LlamaBlockOptions gpt_oss_block_options() {
  LlamaBlockOptions o;
  o.kv_heads = 2;
  o.attention.window = 4;  // a sliding layer (GPT-OSS alternates banded and full layers)
  o.attention.sinks = true;
  o.attention.sink_logits = {0.5, -1.0, 1.5, 0.0};
  o.offers_attention = true;
  o.seed = 0x6F55;
  return o;
}

LlamaBlockOptions dynamic_ntk_block_options() {
  LlamaBlockOptions options;
  options.scaling.type = ScalingType::dynamic_ntk;
  options.scaling.factor = 2;
  options.scaling.original_max_position = 16;
  return options;
}

std::optional<RotateConvention> block_rotary(const LlamaBlockOptions& options) {
  if (!options.rope) return std::nullopt;
  RotateConvention c;
  c.base = options.base;
  c.layout = Layout::halves;
  c.scaling = options.scaling;
  return c;
}

LlamaBlockSubject::LlamaBlockSubject(SubjectInfo info, LlamaBlockOptions options)
    : info_(std::move(info)), options_(options) {
  const int d = options_.width, f = options_.hidden;
  if (options_.heads < 1 || d % options_.heads != 0 || (d / options_.heads) % 2 != 0) {
    throw std::invalid_argument(
        fmt::format("{}: {} heads of width {} cannot each rotate pairs", info_.name, options_.heads, d));
  }
  const ScalingType type = options_.scaling.type;
  if (type == ScalingType::yarn || type == ScalingType::longrope) {
    throw std::invalid_argument(fmt::format("{}: the block's rotary carries no magnitude, so not {} scaling",
                                            info_.name, name(type)));
  }
  gen::FastRandom random(options_.seed);
  if (options_.key_heads() < 1 || options_.heads % options_.key_heads() != 0) {
    throw std::invalid_argument(fmt::format("{}: {} key/value heads do not divide {} heads", info_.name,
                                            options_.key_heads(), options_.heads));
  }
  const int kv = options_.key_width();
  wq_ = draw_projection(random, d, d);
  wk_ = draw_projection(random, d, kv);
  wv_ = draw_projection(random, d, kv);
  wo_ = draw_projection(random, d, d);
  w_gate_ = draw_projection(random, d, f);
  w_up_ = draw_projection(random, d, f);
  w_down_ = draw_projection(random, f, d);
  attention_norm_ = draw_vector(random, d, 0.2, 1.0);
  mlp_norm_ = draw_vector(random, d, 0.2, 1.0);
}

std::vector<double> LlamaBlockSubject::frequencies(int dim, Position seq_len) {
  const auto& s = options_.scaling;
  if (s.type != ScalingType::none && s.type != ScalingType::dynamic_ntk) {
    return reference::rotary_inv_freq(dim, *block_rotary(options_), seq_len);
  }
  const double base = s.type == ScalingType::dynamic_ntk
                          ? reference::dynamic_ntk_base(options_.base, s.factor, seq_len, s.original_max_position, dim)
                          : options_.base;
  return reference::rope_frequencies(dim, base);
}

Matrix LlamaBlockSubject::tuned(Matrix q, const Positions& positions) const {
  if (!options_.temperature_tuning) return q;
  for (Eigen::Index r = 0; r < q.rows(); ++r) {
    const Position p = positions[static_cast<size_t>(r)];
    q.row(r) *= options_.temperature ? options_.temperature(*options_.temperature_tuning, p)
                                     : reference::query_temperature(*options_.temperature_tuning, p);
  }
  return q;
}

Matrix LlamaBlockSubject::rotary(const Matrix& x, const Positions& positions, Position seq_len) {
  if (!options_.rope) return x;
  const int width = options_.head_width();
  const auto omega = frequencies(width, seq_len);
  Matrix out(x.rows(), x.cols());
  for (int head = 0; head < static_cast<int>(x.cols() / width); ++head) {
    out.middleCols(head * width, width) = reference::rotate_halves(x.middleCols(head * width, width), positions, omega);
  }
  return out;
}

Matrix LlamaBlockSubject::stack(const std::vector<Vector>& rows, Eigen::Index width) {
  Matrix out(static_cast<Eigen::Index>(rows.size()), width);
  for (size_t r = 0; r < rows.size(); ++r) out.row(static_cast<Eigen::Index>(r)) = rows[r].transpose();
  return out;
}

Matrix LlamaBlockSubject::cached_keys(const Session& session, Position seq_len) {
  return rotary(stack(session.keys, options_.key_width()), session.positions, seq_len);
}

bool LlamaBlockSubject::may_attend(Eigen::Index query, Eigen::Index key) const {
  if (key > query) return false;
  // Llama 4's chunked layers: keys of the query's own chunk only.
  if (const auto& chunk = options_.attention.chunk; chunk && key / *chunk != query / *chunk) return false;
  return !options_.attention.window || key > query - *options_.attention.window;
}

int LlamaBlockSubject::kv_head(int h) const {
  return AttentionConvention::kv_head_of(h, options_.heads, options_.key_heads(), options_.attention.grouping);
}

double LlamaBlockSubject::cap_logit(double s, Path) const {
  const auto& cap = options_.attention.softcap;
  return cap ? *cap * std::tanh(s / *cap) : s;
}

std::optional<double> LlamaBlockSubject::sink_logit(int h) const {
  const auto& a = options_.attention;
  if (!a.sinks || h < 0 || h >= static_cast<int>(a.sink_logits.size())) return std::nullopt;
  return a.sink_logits[static_cast<size_t>(h)];
}

Matrix LlamaBlockSubject::heads_attention(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& seen,
                                          Path path) const {
  const int heads = options_.heads, groups = options_.key_heads();
  const Eigen::Index d_head = q.cols() / heads, d_v = v.cols() / groups;
  const double scale = options_.attention.scale_for(d_head);
  Matrix out = Matrix::Zero(q.rows(), heads * d_v);
  std::vector<double> w(static_cast<size_t>(k.rows()));
  for (int h = 0; h < heads; ++h) {
    const int g = kv_head(h);
    const auto qh = q.middleCols(h * d_head, d_head);
    const auto kh = k.middleCols(g * d_head, d_head);
    const auto vh = v.middleCols(g * d_v, d_v);
    const std::optional<double> sink = sink_logit(h);
    for (Eigen::Index i = 0; i < q.rows(); ++i) {
      double top = sink.value_or(-std::numeric_limits<double>::infinity());
      bool any = false;
      for (Eigen::Index j = 0; j < k.rows(); ++j) {
        if (!seen(i, j)) continue;
        any = true;
        w[static_cast<size_t>(j)] = cap_logit(qh.row(i).dot(kh.row(j)) * scale, path);
        if (!(w[static_cast<size_t>(j)] <= top)) top = w[static_cast<size_t>(j)];  // a NaN spreads
      }
      if (!any) continue;  // no visible key: a zero row (with a sink: all of the mass on it)
      double sum = sink ? std::exp(*sink - top) : 0.0;
      for (Eigen::Index j = 0; j < k.rows(); ++j) {
        if (!seen(i, j)) continue;
        w[static_cast<size_t>(j)] = std::exp(w[static_cast<size_t>(j)] - top);
        sum += w[static_cast<size_t>(j)];
      }
      for (Eigen::Index j = 0; j < k.rows(); ++j) {
        if (seen(i, j)) out.row(i).segment(h * d_v, d_v) += (w[static_cast<size_t>(j)] / sum) * vh.row(j);
      }
    }
  }
  return out;
}

Matrix LlamaBlockSubject::attend(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed,
                                 Path path) const {
  return heads_attention(q, k, v, allowed, path) * wo_;
}

Matrix LlamaBlockSubject::mlp(const Matrix& h) const {
  const Matrix normed = reference::rms_norm(h, mlp_norm_);
  const Matrix gated = reference::silu(normed * w_gate_).cwiseProduct(normed * w_up_);
  return gated * w_down_;
}

Matrix LlamaBlockSubject::block(const Matrix& x, const Positions& positions, Position seq_len,
                                const std::function<bool(Eigen::Index, Eigen::Index)>& allowed) {
  const Matrix normed = reference::rms_norm(x, attention_norm_);
  const Matrix q = tuned(rotary(normed * wq_, positions, seq_len), positions);
  const Matrix k = rotary(normed * wk_, positions, seq_len);
  const Matrix v = normed * wv_;
  BoolMatrix mask(x.rows(), x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.rows(); ++j) mask(i, j) = allowed(i, j);
  }
  const Matrix h = x + attend(q, k, v, mask, Path::prefill);
  return h + mlp(h);
}

namespace {

// Pads before sequence `row`'s first real token.
Eigen::Index left_padding(const ForwardRequest& request, Eigen::Index row) {
  Eigen::Index lead = 0;
  while (lead < request.tokens && !request.real(row, lead)) ++lead;
  return lead;
}

}  // namespace

Batch LlamaBlockSubject::forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  const ForwardRequest request = forward_request(info_, x, positions, padding);
  Batch out;
  out.reserve(x.size());
  for (size_t b = 0; b < x.size(); ++b) {
    const auto row = static_cast<Eigen::Index>(b);
    const Positions& at = request.positions[b];
    // The length the rotary base follows: the last real position + 1 (HF: max(position_ids) + 1).
    Position seq_len = 1;
    for (Eigen::Index r = 0; r < request.tokens; ++r) {
      if (request.real(row, r)) seq_len = std::max(seq_len, at[static_cast<size_t>(r)] + 1);
    }
    // Indices count from the first real token (a chunk starts there, as
    // transformers' chunked mask offsets kv_idx and q_idx by the left padding).
    const Eigen::Index lead = left_padding(request, row);
    out.push_back(block(x[b], at, seq_len, [&](Eigen::Index i, Eigen::Index j) {
      return request.real(row, j) && prefill_may_attend(i - lead, j - lead);
    }));
  }
  return out;
}

Batch LlamaBlockSubject::backward_under(const ForwardCall& call, const Batch& grad,
                                        const std::function<bool(Eigen::Index, Eigen::Index)>& attend) {
  // What the info declares decides (a planted bug declares what its twin does).
  if ((info_.backward_of & static_cast<unsigned>(Op::forward)) == 0) {
    throw Refusal(fmt::format("{} does not answer the backward of forward", info_.name));
  }
  if (call.layer || !call.segments.empty()) {
    throw Refusal(fmt::format("{} answers the backward of a whole forward, not of one layer or packed documents",
                              info_.name));
  }
  const ForwardRequest request = forward_request(info_, call.x, call.positions, call.padding);
  reference::BlockWeights w{wq_, wk_, wv_, wo_, w_gate_, w_up_, w_down_, attention_norm_, mlp_norm_, options_.heads};
  AttentionConvention convention = options_.attention;
  convention.heads = options_.heads;
  convention.kv_heads = options_.key_heads();
  Batch out;
  for (size_t b = 0; b < call.x.size(); ++b) {
    const auto row = static_cast<Eigen::Index>(b);
    const Positions& at = request.positions[b];
    Position seq_len = 1;  // as forward: the last real position + 1
    for (Eigen::Index r = 0; r < request.tokens; ++r) {
      if (request.real(row, r)) seq_len = std::max(seq_len, at[static_cast<size_t>(r)] + 1);
    }
    BoolMatrix seen(request.tokens, request.tokens);
    const Eigen::Index lead = left_padding(request, row);  // as forward: indices from the first real token
    for (Eigen::Index i = 0; i < request.tokens; ++i) {
      for (Eigen::Index j = 0; j < request.tokens; ++j) seen(i, j) = request.real(row, j) && attend(i - lead, j - lead);
    }
    const std::vector<double> omega = options_.rope ? frequencies(options_.head_width(), seq_len) : std::vector<double>{};
    if (grad[b].rows() != request.tokens || grad[b].cols() != options_.width) {
      throw std::invalid_argument(fmt::format("backward of forward: grad {}×{} for {} tokens of width {}", grad[b].rows(),
                                              grad[b].cols(), request.tokens, options_.width));
    }
    out.push_back(reference::block_vjp(w, call.x[b], at, omega, seen, convention, grad[b]));
  }
  return out;
}

Batch LlamaBlockSubject::forward_backward(const ForwardCall& call, const Batch& grad) {
  return backward_under(call, grad, [this](Eigen::Index i, Eigen::Index j) { return backward_may_attend(i, j); });
}

Batch LlamaBlockSubject::reference_backward(const ForwardCall& call, const Batch& grad) {
  return backward_under(call, grad, [this](Eigen::Index i, Eigen::Index j) { return LlamaBlockSubject::may_attend(i, j); });
}

Position LlamaBlockSubject::cached_length(const Session& session) {
  return session.positions.empty() ? 1 : *std::max_element(session.positions.begin(), session.positions.end()) + 1;
}

void LlamaBlockSubject::trim(Session& session) const {
  if (!options_.rolling_buffer || !options_.attention.window) return;
  const auto keep = static_cast<std::size_t>(*options_.attention.window);
  while (session.keys.size() > keep) {
    session.keys.erase(session.keys.begin());
    session.keys_at_append.erase(session.keys_at_append.begin());
    session.values.erase(session.values.begin());
    session.positions.erase(session.positions.begin());
    ++session.first;
  }
}

Matrix LlamaBlockSubject::append(Session& session, const Matrix& x, const Positions& positions) {
  const Matrix normed = reference::rms_norm(x, attention_norm_);
  const Eigen::Index before = session.first + static_cast<Eigen::Index>(session.keys.size());  // tokens so far
  for (Eigen::Index r = 0; r < x.rows(); ++r) session.positions.push_back(positions[static_cast<size_t>(r)]);
  const Position seq_len = decode_length(session);
  const Matrix q = tuned(rotary(normed * wq_, positions, seq_len), positions);
  const Matrix k = normed * wk_;
  const Matrix rotated_now = rotary(k, positions, seq_len);
  const Matrix values = normed * wv_;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    session.keys.push_back(k.row(r).transpose());
    session.keys_at_append.push_back(rotated_now.row(r).transpose());
    session.values.push_back(values.row(r).transpose());
  }
  const Matrix keys = cached_keys(session, seq_len);
  // Query r is token `before + r`; cached key j is token `first + j`.
  BoolMatrix seen(x.rows(), keys.rows());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index j = 0; j < keys.rows(); ++j) {
      seen(r, j) = step_may_attend(r, x.rows(), j, before + r, session.first + j);
    }
  }
  const Matrix h = x + attend(q, keys, stack(session.values, options_.key_width()), seen, Path::decode);
  trim(session);
  return h + mlp(h);
}

Vector LlamaBlockSubject::decode(const std::string& session_name, const Vector& x, Position position) {
  check_decode_input(info_, x);
  return append(sessions_[session_name], x.transpose(), {position}).row(0).transpose();
}

Matrix LlamaBlockSubject::decode_tokens(const std::string& session_name, const Matrix& x, const Positions& positions) {
  if (x.rows() < 1 || static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw std::invalid_argument(fmt::format("decode: {} positions for {} tokens", positions.size(), x.rows()));
  }
  for (Eigen::Index r = 0; r < x.rows(); ++r) check_decode_input(info_, x.row(r).transpose());
  return append(sessions_[session_name], x, positions);
}

void LlamaBlockSubject::reset(const std::string& session) {
  const auto found = sessions_.find(session);
  if (found != sessions_.end()) clear(found->second);
}

void LlamaBlockSubject::reset_with_capacity(const std::string& session, Position capacity) {
  if (capacity < 1) throw Refusal(fmt::format("a cache capacity must be positive, got {}", capacity));
  Session& s = sessions_[session];
  clear(s);
  s.capacity = capacity;
}

Batch LlamaBlockSubject::forward_packed(const Batch& x, const std::vector<Positions>& positions,
                                        const BoolMatrix& padding, const std::vector<Positions>& segments) {
  const ForwardRequest request = forward_request(info_, x, positions, padding);
  if (segments.size() != x.size()) {
    throw std::invalid_argument(fmt::format("forward: {} rows of segments for {} sequences", segments.size(), x.size()));
  }
  Batch out;
  for (size_t b = 0; b < x.size(); ++b) {
    const auto row = static_cast<Eigen::Index>(b);
    const Positions& doc = segments[b];
    if (static_cast<Eigen::Index>(doc.size()) != request.tokens) {
      throw std::invalid_argument(fmt::format("forward: {} segment ids for {} tokens", doc.size(), request.tokens));
    }
    const Positions& at = request.positions[b];
    Position seq_len = 1;
    for (Eigen::Index r = 0; r < request.tokens; ++r) {
      if (request.real(row, r)) seq_len = std::max(seq_len, at[static_cast<size_t>(r)] + 1);
    }
    out.push_back(block(x[b], at, seq_len, [&](Eigen::Index i, Eigen::Index j) {
      return request.real(row, j) && doc[static_cast<size_t>(i)] == doc[static_cast<size_t>(j)] &&
             prefill_may_attend(i, j);
    }));
  }
  return out;
}

Matrix LlamaBlockSubject::attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                                    int heads) {
  if (!info_.supports(Op::attention)) return TypedSubject::attention(q, k, v, mask, heads);
  reference::check_grouped_inputs(q, k, v, mask, heads, info_.attention);
  const Eigen::Index n = q.rows(), m = k.rows();
  BoolMatrix seen(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      // A cache's causal mask: query i is token i + m − n.
      seen(i, j) = mask.kind == AttentionMask::Kind::causal ? prefill_may_attend(i + m - n, j)
                                                            : reference::may_attend(mask, i, j);
    }
  }
  return heads_attention(q, k, v, seen, Path::prefill);
}

Matrix LlamaBlockSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  if (!info_.supports(Op::rotate)) return TypedSubject::rotate(positions, x, seq_len);
  const auto dim = static_cast<int>(x.cols());
  if (dim < 2 || dim % 2 != 0) {
    throw Refusal(fmt::format("{} rotates pairs and needs an even dim, got {}", info_.name, dim));
  }
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw std::invalid_argument(fmt::format("rotate: {} positions for {} rows", positions.size(), x.rows()));
  }
  Position length = 1;
  for (Position t : positions) length = std::max(length, t + 1);
  if (!options_.rope) return x;
  return reference::rotate_halves(x, positions, frequencies(dim, seq_len.value_or(length)));
}

namespace {

SubjectEntry llama_entry(std::string name, std::string description, LlamaBlockOptions options, std::string scheme,
                         bool in_default_matrix) {
  return {name, std::move(description),
          [name, options, scheme] {
            return std::make_unique<LlamaBlockSubject>(llama_block_info(name, builtin_spec(name), options, scheme),
                                                       options);
          },
          in_default_matrix};
}

}  // namespace

namespace {

// The Llama block as pecheck's reference module: its defaults, answering the backward of forward.
LlamaBlockOptions reference_block_options() {
  LlamaBlockOptions o;
  o.answers_backward = true;
  return o;
}

}  // namespace

bool has_reference_module(std::string_view scheme) { return scheme == "llama-block"; }

std::unique_ptr<LlamaBlockSubject> reference_module(std::string_view scheme) {
  if (!has_reference_module(scheme)) return nullptr;
  const std::string name(scheme);
  return std::make_unique<LlamaBlockSubject>(llama_block_info(name, builtin_spec(name), reference_block_options(), name),
                                             reference_block_options());
}

std::vector<SubjectEntry> llama_block_builtins() {
  return {
      llama_entry("llama-block",
                  "Llama-style causal block (RMSNorm, RoPE halves, causal attention, SwiGLU), d=32, 4 heads, fixed "
                  "weights, with a key/value cache for decode; answers the backward of forward",
                  reference_block_options(), "llama-block", kModulesInDefaultMatrix),
      llama_entry("mistral-block",
                  "Mistral-style block: the Llama block with GQA (4 query, 2 key/value heads), a sliding window of 4 "
                  "keys and a rolling-buffer cache of 4; offers its attention kernel",
                  mistral_block_options(), "mistral-block", kModulesInDefaultMatrix),
      llama_entry("llama-gqa-block",
                  "Llama 3-style block: the Llama block with GQA (4 query heads over 2 key/value heads, "
                  "repeat_interleave); offers its attention kernel",
                  llama_gqa_block_options(), "llama-gqa-block", kModulesInDefaultMatrix),
      llama_entry("gemma2-block",
                  "Gemma 2-style block: GQA 4/2, attention logits soft-capped at 50, scale 1/16 "
                  "(query_pre_attn_scalar 256); offers its attention kernel",
                  gemma2_block_options(), "gemma2-block", kModulesInDefaultMatrix),
      llama_entry("gpt-oss-block",
                  "GPT-OSS-style sliding layer: GQA 4/2, a window of 4 keys, learned sink logits per head; offers "
                  "its attention kernel",
                  gpt_oss_block_options(), "gpt-oss-block", kModulesInDefaultMatrix),
      llama_entry("llama-block-dynamic-ntk",
                  "the Llama block with dynamic NTK RoPE (factor 2 beyond 16 positions); decode re-rotates its "
                  "cached keys with the current base; offers rotate",
                  dynamic_ntk_block_options(), "llama-block-dynamic-ntk", false),
  };
}

}  // namespace pecheck

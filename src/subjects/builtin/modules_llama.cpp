#include "pecheck/subjects/builtin/modules_llama.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pecheck/reference/modules.h"
#include "pecheck/reference/rotary.h"

namespace pecheck {

SubjectInfo llama_block_info(std::string name, std::string spec, const LlamaBlockOptions& options, std::string scheme) {
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
  return info;
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
  wq_ = draw_projection(random, d, d);
  wk_ = draw_projection(random, d, d);
  wv_ = draw_projection(random, d, d);
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

Matrix LlamaBlockSubject::rotary(const Matrix& x, const Positions& positions, Position seq_len) {
  if (!options_.rope) return x;
  const int width = options_.width / options_.heads;
  const auto omega = frequencies(width, seq_len);
  Matrix out(x.rows(), x.cols());
  for (int head = 0; head < options_.heads; ++head) {
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
  return rotary(stack(session.keys, options_.width), session.positions, seq_len);
}

Matrix LlamaBlockSubject::attend(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed) const {
  const int width = options_.width / options_.heads;
  Matrix heads(q.rows(), options_.width);
  for (int head = 0; head < options_.heads; ++head) {
    const Eigen::Index c = head * width;
    heads.middleCols(c, width) =
        reference::masked_attention(q.middleCols(c, width), k.middleCols(c, width), v.middleCols(c, width), allowed);
  }
  return heads * wo_;
}

Matrix LlamaBlockSubject::mlp(const Matrix& h) const {
  const Matrix normed = reference::rms_norm(h, mlp_norm_);
  const Matrix gated = reference::silu(normed * w_gate_).cwiseProduct(normed * w_up_);
  return gated * w_down_;
}

Matrix LlamaBlockSubject::block(const Matrix& x, const Positions& positions, Position seq_len,
                                const std::function<bool(Eigen::Index, Eigen::Index)>& allowed) {
  const Matrix normed = reference::rms_norm(x, attention_norm_);
  const Matrix q = rotary(normed * wq_, positions, seq_len);
  const Matrix k = rotary(normed * wk_, positions, seq_len);
  const Matrix v = normed * wv_;
  BoolMatrix mask(x.rows(), x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.rows(); ++j) mask(i, j) = allowed(i, j);
  }
  const Matrix h = x + attend(q, k, v, mask);
  return h + mlp(h);
}

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
    out.push_back(block(x[b], at, seq_len, [&](Eigen::Index i, Eigen::Index j) {
      return request.real(row, j) && may_attend(i, j);
    }));
  }
  return out;
}

Vector LlamaBlockSubject::decode(const std::string& session_name, const Vector& x, Position position) {
  check_decode_input(info_, x);
  Session& session = sessions_[session_name];
  const Matrix token = x.transpose();
  const Matrix normed = reference::rms_norm(token, attention_norm_);
  session.positions.push_back(position);
  const Position seq_len = *std::max_element(session.positions.begin(), session.positions.end()) + 1;
  const Matrix q = rotary(normed * wq_, {position}, seq_len);
  const Matrix k = normed * wk_;
  session.keys.push_back(k.row(0).transpose());
  session.keys_at_append.push_back(rotary(k, {position}, seq_len).row(0).transpose());
  session.values.push_back((normed * wv_).row(0).transpose());
  const Matrix keys = cached_keys(session, seq_len);
  const BoolMatrix every = BoolMatrix::Constant(1, keys.rows(), true);
  const Matrix h = token + attend(q, keys, stack(session.values, options_.width), every);
  return (h + mlp(h)).row(0).transpose();
}

void LlamaBlockSubject::reset(const std::string& session) {
  const auto found = sessions_.find(session);
  if (found != sessions_.end()) clear(found->second);
}

Matrix LlamaBlockSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  if (!info_.supports(Op::rotate)) return Subject::rotate(positions, x, seq_len);
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
            return std::make_unique<LlamaBlockSubject>(llama_block_info(name, "builtin:" + name, options, scheme),
                                                       options);
          },
          in_default_matrix};
}

}  // namespace

std::vector<SubjectEntry> llama_block_builtins() {
  return {
      llama_entry("llama-block",
                  "Llama-style causal block (RMSNorm, RoPE halves, causal attention, SwiGLU), d=32, 4 heads, fixed "
                  "weights, with a key/value cache for decode",
                  {}, "llama-block", kModulesInDefaultMatrix),
      llama_entry("llama-block-dynamic-ntk",
                  "the Llama block with dynamic NTK RoPE (factor 2 beyond 16 positions); decode re-rotates its "
                  "cached keys with the current base; offers rotate",
                  dynamic_ntk_block_options(), "llama-block-dynamic-ntk", false),
  };
}

}  // namespace pecheck

#include "pecheck/subjects/builtin/modules_encoder.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/modules.h"

namespace pecheck {

SubjectInfo encoder_layer_info(std::string name, SubjectSpec spec, const EncoderLayerOptions& options,
                               Positional positional, std::string scheme) {
  return module_info(std::move(name), std::move(spec), {false, positional, options.width}, false, std::move(scheme));
}

EncoderLayerSubject::EncoderLayerSubject(SubjectInfo info, EncoderLayerOptions options)
    : info_(std::move(info)), options_(options) {
  if (options_.heads < 1 || options_.width % options_.heads != 0) {
    throw std::invalid_argument(fmt::format("{}: {} heads do not divide width {}", info_.name, options_.heads,
                                            options_.width));
  }
  gen::FastRandom random(options_.seed);
  const int d = options_.width, f = options_.hidden;
  wq_ = draw_projection(random, d, d);
  wk_ = draw_projection(random, d, d);
  wv_ = draw_projection(random, d, d);
  wo_ = draw_projection(random, d, d);
  w1_ = draw_projection(random, d, f);
  w2_ = draw_projection(random, f, d);
  bq_ = draw_vector(random, d, 0.1);
  bk_ = draw_vector(random, d, 0.1);
  bv_ = draw_vector(random, d, 0.1);
  bo_ = draw_vector(random, d, 0.1);
  b1_ = draw_vector(random, f, 0.1);
  b2_ = draw_vector(random, d, 0.1);
  ln1_gain_ = draw_vector(random, d, 0.2, 1.0);
  ln1_shift_ = draw_vector(random, d, 0.1);
  ln2_gain_ = draw_vector(random, d, 0.2, 1.0);
  ln2_shift_ = draw_vector(random, d, 0.1);
}

Matrix EncoderLayerSubject::embed(const ForwardRequest&, Eigen::Index, const Matrix& x) const { return x; }

Batch EncoderLayerSubject::normalize(const Batch& h, const ForwardRequest&, int which) const {
  Batch out;
  out.reserve(h.size());
  for (const auto& sequence : h) out.push_back(reference::layer_norm(sequence, norm_gain(which), norm_shift(which)));
  return out;
}

Matrix EncoderLayerSubject::self_attention(const Matrix& h, const ForwardRequest& request, Eigen::Index b) const {
  const Matrix q = reference::affine(h, wq_, bq_), k = reference::affine(h, wk_, bk_),
               v = reference::affine(h, wv_, bv_);
  const Eigen::Index n = h.rows(), width = options_.width / options_.heads;
  BoolMatrix allowed(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) allowed(i, j) = request.real(b, j);
  }
  Matrix heads(n, options_.width);
  for (int head = 0; head < options_.heads; ++head) {
    const Eigen::Index c = head * width;
    heads.middleCols(c, width) =
        reference::masked_attention(q.middleCols(c, width), k.middleCols(c, width), v.middleCols(c, width), allowed);
  }
  return reference::affine(heads, wo_, bo_);
}

Matrix EncoderLayerSubject::feed_forward(const Matrix& h) const {
  const Matrix inner = reference::affine(h, w1_, b1_);
  const Matrix active = options_.activation == Activation::relu ? reference::relu(inner) : reference::gelu(inner);
  return reference::affine(active, w2_, b2_);
}

Batch EncoderLayerSubject::forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  const ForwardRequest request = forward_request(info_, x, positions, padding);
  const auto batch = static_cast<Eigen::Index>(x.size());
  Batch h(x.size());
  for (Eigen::Index b = 0; b < batch; ++b) h[static_cast<size_t>(b)] = embed(request, b, x[static_cast<size_t>(b)]);
  // Each stage runs over the whole batch, so a normalisation that mixes
  // sequences (a planted bug) can be written as one override.
  auto each = [&](const Batch& in, auto&& stage) {
    Batch out(in.size());
    for (Eigen::Index b = 0; b < batch; ++b) out[static_cast<size_t>(b)] = stage(in[static_cast<size_t>(b)], b);
    return out;
  };
  auto plus = [](Batch a, const Batch& b) {
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    return a;
  };
  auto attend = [&](const Matrix& s, Eigen::Index b) { return self_attention(s, request, b); };
  auto feed = [&](const Matrix& s, Eigen::Index) { return feed_forward(s); };
  if (options_.pre_norm) {
    h = plus(h, each(normalize(h, request, 0), attend));
    return plus(h, each(normalize(h, request, 1), feed));
  }
  h = normalize(plus(h, each(h, attend)), request, 0);
  return normalize(plus(h, each(h, feed)), request, 1);
}

LearnedEncoderSubject::LearnedEncoderSubject(SubjectInfo info, EncoderLayerOptions options, Position table_size)
    : EncoderLayerSubject(std::move(info), options) {
  gen::FastRandom random(options.seed ^ 0x7AB1E);
  table_ = draw_matrix(random, table_size, options.width, 1.0);
}

Position LearnedEncoderSubject::table_row(const ForwardRequest& request, Eigen::Index b, Eigen::Index r) const {
  return request.positions[static_cast<size_t>(b)][static_cast<size_t>(r)];
}

Matrix LearnedEncoderSubject::embed(const ForwardRequest& request, Eigen::Index b, const Matrix& x) const {
  Matrix out = x;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    if (!request.real(b, r)) continue;
    const Position t = table_row(request, b, r);
    if (t < 0 || t >= table_.rows()) {
      throw Refusal(fmt::format("{} has learned positions 0..{}, not {}", info().name, table_.rows() - 1, t));
    }
    out.row(r) += table_.row(t);
  }
  return out;
}

namespace {

SubjectEntry encoder_entry(std::string name, std::string description, EncoderLayerOptions options,
                           bool in_default_matrix) {
  return {name, std::move(description),
          [name, options] {
            return std::make_unique<EncoderLayerSubject>(
                encoder_layer_info(name, builtin_spec(name), options, Positional::none, "encoder-layer"), options);
          },
          in_default_matrix};
}

}  // namespace

std::vector<SubjectEntry> encoder_layer_builtins() {
  EncoderLayerOptions pre_norm;
  pre_norm.pre_norm = true;
  pre_norm.activation = Activation::gelu;
  return {
      encoder_entry("encoder-layer",
                    "transformer encoder layer (post-norm, ReLU; torch's defaults), d=16, 4 heads, no positional "
                    "encoding, key-padding mask, fixed weights",
                    {}, kModulesInDefaultMatrix),
      encoder_entry("encoder-layer-pre-norm", "the encoder layer in its pre-norm form with a GELU feed-forward",
                    pre_norm, false),
      {"learned-encoder",
       "the encoder layer after a learned absolute position table of 4096 rows (positions really used)",
       [] {
         return std::make_unique<LearnedEncoderSubject>(
             encoder_layer_info("learned-encoder", builtin_spec("learned-encoder"), {}, Positional::absolute,
                                "learned-encoder"),
             EncoderLayerOptions{});
       },
       kModulesInDefaultMatrix},
  };
}

}  // namespace pecheck

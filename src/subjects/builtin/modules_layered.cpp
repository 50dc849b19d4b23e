#include "pecheck/subjects/builtin/modules_layered.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules.h"

namespace pecheck {

namespace {

std::vector<std::string> rotate_fields(const std::string& at, const RotateConvention& c) {
  std::vector<std::string> out = {at + ".base", at + ".layout"};
  if (c.scaling.type != ScalingType::none) {
    out.push_back(at + ".scaling.type");
    out.push_back(at + ".scaling.factor");
  }
  return out;
}

}  // namespace

SubjectInfo layered_block_info(std::string name, SubjectSpec spec, const std::vector<LlamaBlockOptions>& layers,
                               std::string scheme) {
  if (layers.empty()) throw std::invalid_argument("a layered block needs a layer");
  SubjectInfo info = module_info(std::move(name), std::move(spec),
                                 {true, Positional::relative, layers.front().width}, true, std::move(scheme));
  info.ops |= static_cast<unsigned>(Op::rotate);
  for (const auto& layer : layers) {
    info.forward->layers.push_back(
        {block_rotary(layer), layer.temperature_tuning, layer.attention.window, layer.attention.chunk});
  }
  info.declared.push_back("params.forward.layers");
  // Every stack answers llama.cpp's context shift, layer by layer (module.context_shift).
  info.context_shift = true;
  info.declared.push_back("params.forward.context_shift");
  // A window every layer shares is the module's window (module.window_no_lookback); layers that differ declare none.
  const auto window = layers.front().attention.window;
  const bool shared = std::all_of(layers.begin(), layers.end(),
                                  [&](const LlamaBlockOptions& l) { return l.attention.window == window; });
  if (window && shared) {
    info.forward->attention.window = window;
    info.declared.push_back("params.forward.window");
  }
  if (const auto first = block_rotary(layers.front())) {
    info.rotate = *first;
    const auto fields = rotate_fields("params.rotate", *first);
    info.declared.insert(info.declared.end(), fields.begin(), fields.end());
  }
  return info;
}

LayeredBlockSubject::LayeredBlockSubject(SubjectInfo info, std::vector<LlamaBlockOptions> layers)
    : info_(std::move(info)) {
  for (size_t k = 0; k < layers.size(); ++k) {
    LlamaBlockOptions options = layers[k];
    if (options.width != layers.front().width) {
      throw std::invalid_argument(fmt::format("{}: layer {} is {} wide, layer 0 {}", info_.name, k, options.width,
                                              layers.front().width));
    }
    SubjectInfo inner = module_info(fmt::format("{} layer {}", info_.name, k), info_.spec,
                                    {true, Positional::relative, options.width}, true, info_.scheme);
    inner.ops |= static_cast<unsigned>(Op::rotate);
    blocks_.push_back(std::make_unique<LlamaBlockSubject>(std::move(inner), options));
  }
}

LlamaBlockSubject& LayeredBlockSubject::block(int layer) {
  if (layer < 0 || layer >= layer_count()) {
    throw Refusal(fmt::format("layer {} is not one of {}'s {} layers", layer, info_.name, layer_count()));
  }
  return *blocks_[static_cast<size_t>(layer)];
}

Batch LayeredBlockSubject::run_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                                     const BoolMatrix& padding) {
  return block(layer).forward(x, positions, padding);
}

Matrix LayeredBlockSubject::layer_rotation(int layer, const Positions& positions, const Matrix& x,
                                           std::optional<Position> seq_len) {
  return block(layer).rotate(positions, x, seq_len);
}

Batch LayeredBlockSubject::forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  Batch h = x;
  for (int k = 0; k < layer_count(); ++k) h = run_layer(k, h, positions, padding);
  return h;
}

Batch LayeredBlockSubject::forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                                         const BoolMatrix& padding) {
  block(layer);  // refuses a layer it does not have
  return run_layer(layer, x, positions, padding);
}

Vector LayeredBlockSubject::decode(const std::string& session, const Vector& x, Position position) {
  Vector h = x;
  for (int k = 0; k < layer_count(); ++k) h = block(k).decode(session, h, position);
  return h;
}

void LayeredBlockSubject::reset(const std::string& session) {
  for (int k = 0; k < layer_count(); ++k) block(k).reset(session);
}

Matrix LayeredBlockSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  return layer_rotation(0, positions, x, seq_len);
}

Matrix LayeredBlockSubject::rotate_layer(int layer, const Positions& positions, const Matrix& x,
                                         std::optional<Position> seq_len) {
  block(layer);
  return layer_rotation(layer, positions, x, seq_len);
}

Matrix LayeredBlockSubject::shift_matrix(int layer, Position delta, int dim) {
  const Positions at(static_cast<size_t>(dim), delta);
  return layer_rotation(layer, at, Matrix::Identity(dim, dim), std::nullopt);
}

Matrix LayeredBlockSubject::layer_shift(int layer, const Positions& positions, const Matrix& x, Position shift) {
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) throw Refusal("a context shift: one position per row");
  const Matrix m = shift_matrix(layer, shift < 0 ? -shift : shift, static_cast<int>(x.cols()));
  // A rotation's inverse is its transpose (the blocks' rotaries carry no magnitude).
  return shift < 0 ? Matrix(x * m.transpose()) : Matrix(x * m);
}

Matrix LayeredBlockSubject::rotate_shift(std::optional<int> layer, const Positions& positions, const Matrix& x,
                                         Position shift, std::optional<Position>) {
  const int k = layer.value_or(0);
  block(k);  // refuses a layer it does not have
  for (Position p : positions) {
    if (p + shift < 0) throw Refusal(fmt::format("a shift of {} from position {} lands before 0", shift, p));
  }
  return layer_shift(k, positions, x, shift);
}

std::vector<LlamaBlockOptions> gemma3_layers() {
  std::vector<LlamaBlockOptions> layers;
  for (int k = 0; k < 6; ++k) {
    LlamaBlockOptions options;
    options.seed = 0x6E3A + static_cast<std::uint64_t>(k);
    const bool global = (k + 1) % 6 == 0;
    options.base = global ? 1e6 : 1e4;
    if (global) {
      options.scaling.type = ScalingType::linear;
      options.scaling.factor = 8;
    }
    layers.push_back(options);
  }
  return layers;
}

std::vector<LlamaBlockOptions> mistral_stack_layers() {
  std::vector<LlamaBlockOptions> layers;
  for (int k = 0; k < 2; ++k) {
    LlamaBlockOptions options = mistral_block_options();
    options.offers_attention = false;
    options.seed = 0x3157A2 + static_cast<std::uint64_t>(k);
    layers.push_back(options);
  }
  return layers;
}

std::vector<LlamaBlockOptions> llama4_layers() {
  std::vector<LlamaBlockOptions> layers;
  for (int k = 0; k < 4; ++k) {
    LlamaBlockOptions options;
    options.seed = 0x11A4 + static_cast<std::uint64_t>(k);
    options.base = 500000;
    options.rope = (k + 1) % 4 != 0;
    layers.push_back(options);
  }
  return layers;
}

std::vector<LlamaBlockOptions> llama4_tuned_layers() {
  std::vector<LlamaBlockOptions> layers = llama4_layers();
  for (auto& layer : layers) {
    if (!layer.rope) layer.temperature_tuning = TemperatureTuning{0.1, 8192};
  }
  return layers;
}

namespace {

SubjectEntry layered_entry(std::string name, std::string description, std::vector<LlamaBlockOptions> layers,
                           bool in_default_matrix) {
  return {name, std::move(description),
          [name, layers] {
            return std::make_unique<LayeredBlockSubject>(layered_block_info(name, builtin_spec(name), layers, name),
                                                         layers);
          },
          in_default_matrix};
}

}  // namespace

std::vector<SubjectEntry> layered_block_builtins() {
  return {
      layered_entry("gemma3-block",
                    "Gemma-3-style stack of 6 Llama blocks (d=32): layers 0–4 local (base 10⁴, unscaled), layer 5 "
                    "global (base 10⁶, linear ×8); answers rotate and forward per layer",
                    gemma3_layers(), kModulesInDefaultMatrix),
      layered_entry("llama4-block",
                    "Llama-4-style stack of 4 Llama blocks (d=32, base 500000): layer 3 NoPE (no rotary); answers "
                    "rotate and forward per layer (a variant: the NoPE checks' twin, not a matrix column)",
                    llama4_layers(), false),
      layered_entry("llama4-block@tuned",
                    "llama4-block with Llama 4's attention temperature tuning on its NoPE layer (attn_scale 0.1, "
                    "floor_scale 8192: queries at p scaled by 1 + 0.1·ln(⌊(p + 1)/8192⌋ + 1)); a column of the "
                    "claims matrix (issue 35)",
                    llama4_tuned_layers(), kModulesInDefaultMatrix),
      layered_entry("mistral-stack",
                    "two Mistral-style blocks (d=32, GQA 4/2, each a sliding window of 4 keys with a rolling cache): "
                    "through both, row i sees tokens from i − 6 on; answers forward per layer (a variant: the "
                    "stacked window's twin, not a matrix column)",
                    mistral_stack_layers(), false),
  };
}

}  // namespace pecheck

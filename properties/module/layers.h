#pragma once
// module.layer_schedule's case and measurement (properties/module/layers.cpp),
// shared with module.config_conformance (properties/module/conformance.cpp),
// which judges each layer's positions as a model config reads them.
#include <rapidcheck.h>

#include <string>

#include "pecheck/core/json.h"
#include "pecheck/property/property.h"
#include "input_checks.h"

namespace pecheck::module::layers {

// The sub-checks a layer's positions get.
inline constexpr const char* kRotary = "rotary layer as declared";
inline constexpr const char* kNope = "NoPE layer unrotated";
inline constexpr const char* kBlind = "NoPE layer ignores positions";

struct LayerCase {
  int layer = 0;
  int dim = 2;
  Positions positions;  // rotate: one per row of x
  Position seq_len = 1;
  Matrix x;
  Matrix tokens;        // forward of a NoPE layer: N × width (empty: not asked)
  Position start = 0, stride = 2;  // its second request's positions: start + k·stride
  void validate() const {
    if (layer < 0 || layer > 4096) throw InvalidInput("module.layer_schedule: layer from 0 to 4096");
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(positions.size()), dim);
    if (tokens.size() > 0) {
      input::matrix("tokens", tokens);
      if (start < 0 || stride < 2 || start + stride * tokens.rows() > input::kMaxPosition) {
        throw InvalidInput("module.layer_schedule: start ≥ 0, stride ≥ 2");
      }
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LayerCase, layer, dim, positions, seq_len, x, tokens, start, stride)

// A case for layer `layer`: rotate(layer k) at a few positions, and, for a
// NoPE layer of a module with forward, forward(layer k) at two spacings.
rc::Gen<LayerCase> layer_case(const GenContext& ctx, int layer);
// Layer k against its declaration (params.forward.layers[k].rotate): the
// checks above, those the subject's ops allow.
Measurement layer_measure(Subject& s, const LayerCase& c, const BoundModel& model);
// Which other layer's settings a failing layer's rotation fits.
std::string layer_diagnose(Subject& s, const LayerCase& c, const BoundModel& model);

}  // namespace pecheck::module::layers

#pragma once
// module.window_no_lookback's case and checks (properties/module/window.cpp),
// shared with module.config_conformance (properties/module/conformance.cpp),
// which judges each layer's attention kind as a model config reads it.
#include <rapidcheck.h>

#include <functional>
#include <optional>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/property/property.h"

namespace pecheck::module::window {

struct WindowCase {
  Matrix x;             // N tokens of one sequence
  Position start = 0;   // positions start, start + 1, …
  int layer = -1;       // the layer asked (-1: the module as one layer)
  int changed = 0;      // the token replaced
  Matrix replacement;   // 1 × width: added to the token, each entry 0.5 further from 0
  void validate() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WindowCase, x, start, layer, changed, replacement)

// The window of `layer` (-1: the module's): the layer's own
// (params.forward.layers[k].window), else params.forward.window; none for a
// full or chunked layer.
std::optional<Position> window_at(const SubjectInfo& s, int layer);

// A case for `layer` of N = j + reach + 1 + r tokens (j ∈ [0, 2], r ∈ [1, 2]):
// token j replaced, rows up to j + reach + r after it.
rc::Gen<WindowCase> window_case(const GenContext& ctx, int layer, Position reach);

// Row `probe` of the layer moves by more than the module error model's bound
// when token c.changed is replaced (the token is in its window).
Check reaches(Subject& s, const WindowCase& c, Eigen::Index probe, const BoundModel& model, const char* name,
              const std::string& why);
// The layer's rows r with hidden(r) do not move (within the bound); `what`
// says which rows they are.
Check unchanged_rows(Subject& s, const WindowCase& c, const std::function<bool(Eigen::Index)>& hidden,
                     const BoundModel& model, const char* name, const std::string& what);
// The chunk of `layer` (-1: the module's): params.forward.layers[k].chunk,
// else params.forward.chunk; none for a full or sliding layer.
std::optional<Position> chunk_at(const SubjectInfo& s, int layer);
// The layer's rows c.changed + w … N − 1 do not move (within the bound).
Check past_window(Subject& s, const WindowCase& c, Position w, const BoundModel& model, const char* name);
// How many tokens the layer's last row sees, probed around a window of w, in
// words naming the layer and `field` ("" when the probe fails).
std::string window_diagnosis(Subject& s, const WindowCase& c, Position w, const std::string& field,
                             const BoundModel& model);

}  // namespace pecheck::module::window

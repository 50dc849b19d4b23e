// Planted bugs of llama.cpp-style context shifts (CLAIMS.md §10,
// module.context_shift): each a gemma3-config-block (layers 0–4 local, base
// 10⁴ unscaled; layer 5 global, base 10⁶ linear ×8) whose forward and
// per-layer rotation are right and whose shift of cached keys is wrong.
#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/subjects/builtin/modules_config.h"
#include "pecheck/subjects/builtin/modules_layered.h"

namespace pecheck {

namespace planted::context_shift_mutants {  // the file's own names (the planted bugs compile in unity batches)

enum class ShiftBug { global_base, sign_reversed, twice, absolute };

class ShiftMutant : public LayeredBlockSubject {
 public:
  ShiftMutant(const std::string& name, ShiftBug bug)
      : LayeredBlockSubject(declared(name), gemma3_config_layers()), bug_(bug) {}

 protected:
  Matrix layer_shift(int layer, const Positions& positions, const Matrix& x, Position shift) override {
    switch (bug_) {
      case ShiftBug::global_base:
        // llama.cpp before PR #12373: build_rope_shift took the model-wide
        // rope settings (the global layers' base and scaling) for every layer.
        return LayeredBlockSubject::layer_shift(layer_count() - 1, positions, x, shift);
      case ShiftBug::sign_reversed:
        return LayeredBlockSubject::layer_shift(layer, positions, x, -shift);
      case ShiftBug::twice: {
        const Matrix once = LayeredBlockSubject::layer_shift(layer, positions, x, shift);
        return LayeredBlockSubject::layer_shift(layer, positions, once, shift);
      }
      case ShiftBug::absolute: {
        // The cached keys rotated at p + Δ as if they had never been rotated.
        Positions to = positions;
        for (Position& p : to) p += shift;
        return layer_rotation(layer, to, x, std::nullopt);
      }
    }
    return x;
  }

 private:
  static SubjectInfo declared(const std::string& name) {
    return config_block(name, mutant_spec(name), gemma3_tiny_config(), gemma3_config_layers(), "gemma3-config-block",
                        true)
        ->info();
  }
  ShiftBug bug_;
};

SubjectEntry entry(std::string name, std::string description, ShiftBug bug) {
  return {name, std::move(description), [name, bug] { return SubjectPtr(std::make_unique<ShiftMutant>(name, bug)); }};
}

}  // namespace planted::context_shift_mutants

std::vector<SubjectEntry> context_shift_mutants() {
  using namespace planted::context_shift_mutants;
  return {
      entry("gemma3-config-shift-global-base",
            "Gemma 3 stack declared by its config whose context shift turns every layer's keys with the global "
            "layer's base 10⁶ and linear ×8 (llama.cpp before PR #12373)",
            ShiftBug::global_base),
      entry("gemma3-config-shift-sign-reversed",
            "Gemma 3 stack declared by its config whose context shift turns the keys by −Δ", ShiftBug::sign_reversed),
      entry("gemma3-config-shift-twice",
            "Gemma 3 stack declared by its config whose context shift turns the keys by Δ twice", ShiftBug::twice),
      entry("gemma3-config-shift-absolute",
            "Gemma 3 stack declared by its config whose context shift rotates the cached (already rotated) keys at "
            "p + Δ as if unrotated",
            ShiftBug::absolute),
  };
}

}  // namespace pecheck

// CLAIMS.md §10 — module.chunk_isolation: a module whose attention is chunked
// (Llama 4's attention_chunk_size C: params.forward.chunk, a layer's chunk,
// or the config's) lets row i of one layer depend only on the tokens of its
// own chunk, j ≤ i with ⌊j/C⌋ = ⌊i/C⌋. attention.chunk_isolation judges the
// kernel offered as the attention op; this one the module, through forward
// with "layer": k (a chunk read as a sliding window of C keys, or chunk
// boundaries shifted by one, are the published mistakes around the kernel).
// One token j is replaced per case (module/window.h's case). The sub-checks:
//   tokens of other chunks unseen  rows i > j in a later chunk do not move
//   own chunk seen                 the last row of j's chunk moves
#include <fmt/format.h>

#include <algorithm>

#include "module/chunk.h"
#include "module/support.h"
#include "pecheck/property/registry.h"
#include "input_checks.h"

namespace pecheck::module::chunk {

namespace {

constexpr const char* kOthers = "tokens of other chunks unseen";
constexpr const char* kOwn = "own chunk seen";

int layer_count(const SubjectInfo& s) { return s.forward ? static_cast<int>(s.forward->layers.size()) : 0; }

std::vector<int> chunked_layers(const SubjectInfo& s) {
  if (layer_count(s) == 0) return {-1};
  std::vector<int> out;
  for (int k = 0; k < layer_count(s); ++k) {
    if (window::chunk_at(s, k)) out.push_back(k);
  }
  return out;
}

Position chunk_of(const SubjectInfo& s, int layer) {
  const auto c = window::chunk_at(s, layer);
  if (!c) throw InvalidInput(fmt::format("module.chunk_isolation: layer {} declares no chunk", layer));
  return *c;
}

// N = j + C + 1 + r tokens: the next chunk begins inside the sequence.
rc::Gen<window::WindowCase> chunk_gen(const GenContext& ctx) {
  const std::vector<int> layers = chunked_layers(ctx.subject);
  if (layers.empty()) throw InvalidInput("module.chunk_isolation: no chunked layer");
  return rc::gen::mapcat(rc::gen::elementOf(layers),
                         [ctx](int layer) { return window::window_case(ctx, layer, chunk_of(ctx.subject, layer)); });
}

std::string layer_name(int layer) { return layer < 0 ? "the module's attention layer" : fmt::format("layer {}", layer); }

}  // namespace

std::vector<Check> chunk_checks(Subject& s, const window::WindowCase& c, Position chunk, const BoundModel& model,
                                const char* others, const char* own) {
  const Eigen::Index j = c.changed, n = c.x.rows();
  const Eigen::Index block = j / chunk;
  std::vector<Check> out;
  out.push_back(window::unchanged_rows(
      s, c, [&](Eigen::Index r) { return r > j && r / chunk != block; }, model, others,
      fmt::format("rows after token {} outside its chunk of {} (tokens {}..{})", j, chunk, block * chunk,
                  block * chunk + chunk - 1)));
  const Eigen::Index probe = std::min<Eigen::Index>(n - 1, (block + 1) * chunk - 1);
  out.push_back(window::reaches(s, c, probe, model, own,
                                fmt::format("token {} and row {} share the chunk {}..{} of C = {}", j, probe,
                                            block * chunk, block * chunk + chunk - 1, chunk)));
  return out;
}

std::string chunk_diagnosis(Subject& s, const window::WindowCase& c, Position chunk, const std::string& field,
                            const BoundModel& model) {
  const Eigen::Index n = std::min<Eigen::Index>(chunk + 2, input::kMaxRows);
  if (n < 3 || c.x.rows() < 1) return {};
  window::WindowCase probe = c;
  probe.x = Matrix(n, c.x.cols());
  for (Eigen::Index r = 0; r < n; ++r) probe.x.row(r) = c.x.row(r % c.x.rows());
  try {
    // Does row C see token C − 1 (the chunk before), does row C − 1 see token 0 (its own chunk's first)?
    probe.changed = static_cast<int>(chunk - 1);
    const Check across = window::reaches(s, probe, chunk, model, "probe", "");
    probe.changed = 0;
    const Check within = window::reaches(s, probe, chunk - 1, model, "probe", "");
    const bool sees_across = across.error > model.value(across.bound);
    const bool sees_within = within.error > model.value(within.bound);
    const std::string where = fmt::format("{} ({} = {})", layer_name(c.layer), field, chunk);
    if (sees_across && sees_within) {
      return fmt::format("{}: row {} sees token {} of the chunk before — the chunk read as a sliding window of C keys "
                         "(or no chunking at all)",
                         where, chunk, chunk - 1);
    }
    if (sees_across) {
      return fmt::format("{}: row {} sees token {} of the chunk before and row {} misses token 0 of its own: chunk "
                         "boundaries shifted (⌊(j + 1)/C⌋, or a chunk of C − 1)",
                         where, chunk, chunk - 1, chunk - 1);
    }
    if (!sees_within) {
      return fmt::format("{}: row {} misses token 0 of its own chunk: chunks smaller than C", where, chunk - 1);
    }
    return fmt::format("{}: rows {} and {} see as chunks of C do; the difference is elsewhere", where, chunk - 1, chunk);
  } catch (const std::exception&) {
    return {};
  }
}

namespace {

Measurement chunk_measure(Subject& s, const window::WindowCase& c, const BoundModel& model) {
  const int layers = layer_count(s.info());
  if (c.layer >= 0 && c.layer >= layers) {
    throw InvalidInput(fmt::format("module.chunk_isolation: layer {} of {} declared", c.layer, layers));
  }
  return {chunk_checks(s, c, chunk_of(s.info(), c.layer), model, kOthers, kOwn), {}};
}

std::string chunk_diagnose(Subject& s, const window::WindowCase& c, const BoundModel& model) {
  const bool from_config = std::find(s.info().declared.begin(), s.info().declared.end(), "params.model") !=
                           s.info().declared.end();
  return chunk_diagnosis(s, c, chunk_of(s.info(), c.layer),
                         from_config ? "chunk, from the model config's attention_chunk_size" : "params.forward.chunk",
                         model);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<window::WindowCase>("module.chunk_isolation", {kOthers, kOwn}, chunk_gen, chunk_measure,
                                     chunk_diagnose)};
}

}  // namespace pecheck::module::chunk

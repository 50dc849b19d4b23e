#include "pecheck/property/applicability.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/property/fresh.h"
#include "pecheck/subjects/builtin/modules_llama.h"

namespace pecheck {

namespace {

using Predicate = std::function<bool(const SubjectInfo&)>;

std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + separator.size();
  }
}

[[noreturn]] void unknown(std::string_view term, std::string_view why) {
  throw std::logic_error(fmt::format("applies_when term '{}': {}", term, why));
}

// The values of "field=V|W" parsed by `parse` (each must be known).
template <class T, class Parse>
std::vector<T> values(std::string_view term, std::string_view list, Parse parse) {
  std::vector<T> out;
  for (auto text : split(list, "|")) {
    auto value = parse(text);
    if (!value) unknown(term, fmt::format("'{}' is not a value of the field", text));
    out.push_back(*value);
  }
  return out;
}

template <class T>
bool one_of(const std::vector<T>& list, T value) {
  for (const T& v : list) {
    if (v == value) return true;
  }
  return false;
}

bool any_layer(const SubjectInfo& s, bool (*test)(const LayerConvention&)) {
  return s.forward && std::any_of(s.forward->layers.begin(), s.forward->layers.end(), test);
}

bool backward_of(const SubjectInfo& s, Op op) { return (s.backward_of & static_cast<unsigned>(op)) != 0; }

// The conditions without a value, each a test of the declarations.
const std::vector<std::pair<std::string_view, Predicate>>& flag_terms() {
  static const std::vector<std::pair<std::string_view, Predicate>> terms = {
      {"forward.causal", [](const SubjectInfo& s) { return s.forward && s.forward->causal; }},
      {"!forward.causal", [](const SubjectInfo& s) { return s.forward && !s.forward->causal; }},
      {"rotate.partial",
       [](const SubjectInfo& s) { return s.rotate.rotary_dim.has_value() || s.rotate.rotary_fraction.has_value(); }},
      {"backward.referenced",
       [](const SubjectInfo& s) {
         return backward_of(s, Op::rotate) || backward_of(s, Op::attention) ||
                (backward_of(s, Op::forward) && has_reference_module(s.scheme));
       }},
      {"backward.causal",
       [](const SubjectInfo& s) {
         return backward_of(s, Op::attention) || (backward_of(s, Op::forward) && s.forward && s.forward->causal);
       }},
      {"rotate.multi_axis", [](const SubjectInfo& s) { return s.rotate.multi_axis(); }},
      {"rotate.decoupled", [](const SubjectInfo& s) { return s.rotate.decoupled(); }},
      {"rotate.axes_2d", [](const SubjectInfo& s) { return s.rotate.rope_2d.has_value(); }},
      {"forward.layers", [](const SubjectInfo& s) { return s.forward && !s.forward->layers.empty(); }},
      {"forward.temperature_tuning",
       [](const SubjectInfo& s) {
         return any_layer(s, [](const LayerConvention& l) { return l.temperature_tuning.has_value(); });
       }},
      // A window (a chunk) on the module's attention, or on one of its declared layers.
      {"forward.window",
       [](const SubjectInfo& s) {
         return (s.forward && s.forward->attention.window) ||
                any_layer(s, [](const LayerConvention& l) { return l.window.has_value(); });
       }},
      {"forward.chunk",
       [](const SubjectInfo& s) {
         return (s.forward && s.forward->attention.chunk) ||
                any_layer(s, [](const LayerConvention& l) { return l.chunk.has_value(); });
       }},
      {"rotate.max_position", [](const SubjectInfo& s) { return s.rotate.max_position_embeddings.has_value(); }},
      // A model config read as the declaration (params.model, --model-config).
      {"model",
       [](const SubjectInfo& s) {
         return std::find(s.declared.begin(), s.declared.end(), "params.model") != s.declared.end();
       }},
      {"context_shift", [](const SubjectInfo& s) { return s.context_shift; }},
      {"restartable", [](const SubjectInfo& s) { return can_start_afresh(s); }},
      {"forward.segments", [](const SubjectInfo& s) { return s.forward && s.forward->segments; }},
      {"forward.cache_capacity", [](const SubjectInfo& s) { return s.forward && s.forward->cache_capacity; }},
      {"forward.multi_token_decode", [](const SubjectInfo& s) { return s.forward && s.forward->multi_token_decode; }},
  };
  return terms;
}

// The ops of "op:A|B" (or "backward.of=A|B") as one mask.
unsigned op_mask(std::string_view term, std::string_view list) {
  unsigned any = 0;
  for (Op op : values<Op>(term, list, parse_op)) any |= static_cast<unsigned>(op);
  return any;
}

// The conditions with values, "field=V|W" (or "field!=V|W"): none where the term is not one.
std::optional<Predicate> valued_term(std::string_view term) {
  if (term.starts_with("op:")) {
    return [any = op_mask(term, term.substr(3))](const SubjectInfo& s) { return (s.ops & any) != 0; };
  }
  if (term.starts_with("backward.of=")) {
    return [any = op_mask(term, term.substr(12))](const SubjectInfo& s) { return (s.backward_of & any) != 0; };
  }
  for (std::string_view field : {"forward.positional!=", "forward.positional="}) {
    if (!term.starts_with(field)) continue;
    const bool negated = field.find('!') != std::string_view::npos;
    const auto list = values<Positional>(term, term.substr(field.size()), parse_positional);
    return [list, negated](const SubjectInfo& s) { return s.forward && one_of(list, s.forward->positional) != negated; };
  }
  if (term.starts_with("forward.positions=")) {
    const auto list = values<PositionsSource>(term, term.substr(18), parse_positions_source);
    return [list](const SubjectInfo& s) { return s.forward && one_of(list, s.forward->positions); };
  }
  if (term.starts_with("bias.scheme=")) {
    const auto list = values<BiasScheme>(term, term.substr(12), parse_bias_scheme);
    return [list](const SubjectInfo& s) { return s.bias && one_of(list, s.bias->scheme); };
  }
  if (term.starts_with("rotate.scaling=")) {
    const auto list = values<ScalingType>(term, term.substr(15), parse_scaling_type);
    return [list](const SubjectInfo& s) { return one_of(list, s.rotate.scaling.type); };
  }
  return std::nullopt;
}

// "attention.FIELD": a field of params.attention declared (or set).
Predicate attention_term(std::string_view term) {
  const std::string_view field = term.substr(10);
  using A = AttentionConvention;
  const std::pair<std::string_view, std::function<bool(const A&)>> fields[] = {
      {"heads", [](const A& a) { return a.heads.has_value(); }},
      {"window", [](const A& a) { return a.window.has_value(); }},
      {"chunk", [](const A& a) { return a.chunk.has_value(); }},
      {"softcap", [](const A& a) { return a.softcap.has_value(); }},
      {"sinks", [](const A& a) { return a.sinks; }},
      {"alignment", [](const A& a) { return a.alignment.has_value(); }},
      {"fully_masked", [](const A& a) { return a.fully_masked.has_value(); }},
      {"poison_invariance", [](const A& a) { return a.poison_invariance; }},
      {"dual_chunk", [](const A& a) { return a.dual_chunk.has_value(); }},
      // Every convention params.attention can declare has a float64 reference
      // (reference::attention): a claim judging by value names this term to
      // apply under dual chunk attention too (see applicability below).
      {"referenced", [](const A&) { return true; }}};
  for (const auto& [name, test] : fields) {
    if (name == field) return [test = test](const SubjectInfo& s) { return test(s.attention); };
  }
  unknown(term, "not a field of params.attention pecheck conditions on");
}

Predicate term_predicate(std::string_view term) {
  if (std::optional<Predicate> valued = valued_term(term)) return *valued;
  for (const auto& [name, test] : flag_terms()) {
    if (name == term) return test;
  }
  if (term.starts_with("attention.")) return attention_term(term);
  unknown(term, "not a condition pecheck knows (property/applicability.h lists them)");
}

}  // namespace

std::function<bool(const SubjectInfo&)> applicability(Op op, std::string_view applies_when) {
  std::vector<Predicate> conditions;
  bool op_listed = false;
  if (!applies_when.empty()) {
    for (auto term : split(applies_when, " and ")) {
      if (term.empty()) unknown(term, "an empty condition");
      op_listed |= term.starts_with("op:");
      conditions.push_back(term_predicate(term));
    }
  }
  const auto needed = static_cast<unsigned>(op);
  // A decoupled (MLA) head turns its last features, where every other rotary
  // claim reads the rotated block at the head's start: a claim that sends
  // rotate requests applies to it only when it names rotate.decoupled.
  const bool sends_rotate = op == Op::rotate || applies_when.find("rotate") != std::string_view::npos;
  // The context shift's reference shifts a decoupled head's rope slice alone
  // (reference::rotary_shift), so module.context_shift judges one too.
  const bool names_decoupled = applies_when.find("rotate.decoupled") != std::string_view::npos ||
                               applies_when.find("context_shift") != std::string_view::npos;
  // Likewise a 2-D rotary (vision towers) turns its pairs by two position
  // streams at rearranged frequencies: only claims naming rotate.axes_2d.
  const bool names_2d = applies_when.find("rotate.axes_2d") != std::string_view::npos;
  // Dual chunk attention (Qwen2.5-1M) rotates its queries and keys itself at
  // positions remapped per key chunk: its answers depend on the key order, so
  // a claim that sends attention requests (every structural one assumes
  // position-free attention) applies to it only when it names
  // attention.dual_chunk or attention.referenced (judged by value).
  const bool sends_attention = (static_cast<unsigned>(op) & static_cast<unsigned>(Op::attention)) != 0 ||
                               applies_when.find("attention") != std::string_view::npos;
  const bool names_dual_chunk = applies_when.find("attention.dual_chunk") != std::string_view::npos ||
                                applies_when.find("attention.referenced") != std::string_view::npos;
  return [conditions, op_listed, needed, sends_rotate, names_decoupled, names_2d, sends_attention,
          names_dual_chunk](const SubjectInfo& s) {
    if (!op_listed && (s.ops & needed) == 0) return false;
    if (sends_attention && !names_dual_chunk && s.attention.dual_chunk) return false;
    if (sends_rotate && !names_decoupled && s.rotate.decoupled()) return false;
    if (sends_rotate && !names_2d && s.rotate.rope_2d) return false;
    for (const auto& condition : conditions) {
      if (!condition(s)) return false;
    }
    return true;
  };
}

std::function<bool(const SubjectInfo&)> declares(std::string_view condition) {
  std::vector<Predicate> any;
  for (auto term : split(condition, " or ")) {
    if (term.empty() || term.starts_with("op:")) unknown(term, "violated_when names declarations only");
    any.push_back(term_predicate(term));
  }
  return [any](const SubjectInfo& s) {
    for (const auto& p : any) {
      if (p(s)) return true;
    }
    return false;
  };
}

}  // namespace pecheck

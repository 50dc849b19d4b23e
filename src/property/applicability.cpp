#include "pecheck/property/applicability.h"

#include <fmt/format.h>

#include <algorithm>
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

Predicate term_predicate(std::string_view term) {
  if (term.starts_with("op:")) {
    unsigned any = 0;
    for (Op op : values<Op>(term, term.substr(3), parse_op)) any |= static_cast<unsigned>(op);
    return [any](const SubjectInfo& s) { return (s.ops & any) != 0; };
  }
  if (term == "forward.causal") return [](const SubjectInfo& s) { return s.forward && s.forward->causal; };
  if (term == "!forward.causal") return [](const SubjectInfo& s) { return s.forward && !s.forward->causal; };
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
  if (term == "rotate.partial") {
    return [](const SubjectInfo& s) { return s.rotate.rotary_dim.has_value() || s.rotate.rotary_fraction.has_value(); };
  }
  if (term.starts_with("rotate.scaling=")) {
    const auto list = values<ScalingType>(term, term.substr(15), parse_scaling_type);
    return [list](const SubjectInfo& s) { return one_of(list, s.rotate.scaling.type); };
  }
  if (term.starts_with("backward.of=")) {
    unsigned any = 0;
    for (Op op : values<Op>(term, term.substr(12), parse_op)) any |= static_cast<unsigned>(op);
    return [any](const SubjectInfo& s) { return (s.backward_of & any) != 0; };
  }
  if (term == "backward.referenced") {
    return [](const SubjectInfo& s) {
      const unsigned ops = static_cast<unsigned>(Op::rotate) | static_cast<unsigned>(Op::attention);
      return (s.backward_of & ops) != 0 ||
             ((s.backward_of & static_cast<unsigned>(Op::forward)) != 0 && has_reference_module(s.scheme));
    };
  }
  if (term == "backward.causal") {
    return [](const SubjectInfo& s) {
      return (s.backward_of & static_cast<unsigned>(Op::attention)) != 0 ||
             ((s.backward_of & static_cast<unsigned>(Op::forward)) != 0 && s.forward && s.forward->causal);
    };
  }
  if (term == "rotate.multi_axis") return [](const SubjectInfo& s) { return s.rotate.multi_axis(); };
  if (term == "rotate.decoupled") return [](const SubjectInfo& s) { return s.rotate.decoupled(); };
  if (term == "rotate.axes_2d") return [](const SubjectInfo& s) { return s.rotate.rope_2d.has_value(); };
  if (term == "forward.layers") return [](const SubjectInfo& s) { return s.forward && !s.forward->layers.empty(); };
  if (term == "forward.temperature_tuning") {
    return [](const SubjectInfo& s) {
      if (!s.forward) return false;
      for (const auto& layer : s.forward->layers) {
        if (layer.temperature_tuning) return true;
      }
      return false;
    };
  }
  // A window (a chunk) on the module's attention, or on one of its declared layers.
  if (term == "forward.window" || term == "forward.chunk") {
    const bool window = term == "forward.window";
    return [window](const SubjectInfo& s) {
      if (!s.forward) return false;
      if ((window ? s.forward->attention.window : s.forward->attention.chunk).has_value()) return true;
      return std::any_of(s.forward->layers.begin(), s.forward->layers.end(), [window](const LayerConvention& l) {
        return (window ? l.window : l.chunk).has_value();
      });
    };
  }
  if (term == "rotate.max_position") return [](const SubjectInfo& s) { return s.rotate.max_position_embeddings.has_value(); };
  // A model config read as the declaration (params.model, --model-config).
  if (term == "model") {
    return [](const SubjectInfo& s) {
      return std::find(s.declared.begin(), s.declared.end(), "params.model") != s.declared.end();
    };
  }
  if (term == "context_shift") return [](const SubjectInfo& s) { return s.context_shift; };
  if (term == "restartable") return [](const SubjectInfo& s) { return can_start_afresh(s); };
  if (term.starts_with("attention.")) {
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
        {"poison_invariance", [](const A& a) { return a.poison_invariance; }}};
    for (const auto& [name, test] : fields) {
      if (name == field) return [test = test](const SubjectInfo& s) { return test(s.attention); };
    }
    unknown(term, "not a field of params.attention pecheck conditions on");
  }
  for (std::string_view flag : {"forward.segments", "forward.cache_capacity", "forward.multi_token_decode"}) {
    if (term != flag) continue;
    if (flag == "forward.segments") return [](const SubjectInfo& s) { return s.forward && s.forward->segments; };
    if (flag == "forward.cache_capacity") return [](const SubjectInfo& s) { return s.forward && s.forward->cache_capacity; };
    return [](const SubjectInfo& s) { return s.forward && s.forward->multi_token_decode; };
  }
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
  const bool names_decoupled = applies_when.find("rotate.decoupled") != std::string_view::npos;
  // Likewise a 2-D rotary (vision towers) turns its pairs by two position
  // streams at rearranged frequencies: only claims naming rotate.axes_2d.
  const bool names_2d = applies_when.find("rotate.axes_2d") != std::string_view::npos;
  return [conditions, op_listed, needed, sends_rotate, names_decoupled, names_2d](const SubjectInfo& s) {
    if (!op_listed && (s.ops & needed) == 0) return false;
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

// pecheck identify, and the words and declarations a diagnosis speaks in
// (pecheck/property/identify.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "identify/internal.h"
#include "pecheck/gen/fast_random.h"

namespace pecheck::identify {

namespace {

std::string number(double v) { return fmt::format("{:g}", v); }

}  // namespace

std::string describe(const RotateConvention& c) {
  std::string out = fmt::format("base {}", number(c.base));
  const Layout layout = c.layout == Layout::unspecified ? Layout::interleaved : c.layout;
  out += fmt::format(", {} layout", name(layout));
  if (c.rotary_dim) out += fmt::format(", rotary_dim {}", *c.rotary_dim);
  if (c.rotary_fraction) out += fmt::format(", rotary_fraction {}", number(*c.rotary_fraction));
  if (c.multi_axis()) {
    out += fmt::format(", mrope_section [{}]{}", fmt::join(c.mrope_section, ", "),
                       c.mrope_interleaved ? " interleaved" : "");
  }
  if (!c.freq_factors.empty()) out += fmt::format(", {} freq_factors", c.freq_factors.size());
  if (c.decoupled()) {
    out += fmt::format(", decoupled head: qk_nope_head_dim {} + qk_rope_head_dim {} (the last {} rotate)",
                       c.qk_nope_head_dim.value_or(0), *c.qk_rope_head_dim, *c.qk_rope_head_dim);
  }
  if (c.rope_2d) {
    out += fmt::format(", 2-D rotary: axes [{}], {} frequencies", c.rope_2d->columns_first ? "w, h" : "h, w",
                       name(c.rope_2d->frequencies));
  }
  const RopeScaling& s = c.scaling;
  switch (s.type) {
    case ScalingType::none: break;
    case ScalingType::linear:
    case ScalingType::ntk: out += fmt::format(", {} scaling (factor {})", name(s.type), number(s.factor)); break;
    case ScalingType::dynamic_ntk:
      out += fmt::format(", dynamic_ntk scaling (factor {}, original {})", number(s.factor), s.original_max_position);
      break;
    case ScalingType::yarn:
      out += fmt::format(", yarn scaling (factor {}, original {}, beta {}/{}", number(s.factor),
                         s.original_max_position, number(s.beta_fast), number(s.beta_slow));
      if (s.mscale || s.mscale_all_dim) {
        out += fmt::format(", mscale {}/{}", number(s.mscale.value_or(1)), number(s.mscale_all_dim.value_or(0)));
      }
      if (s.attention_factor) out += fmt::format(", attention_factor {}", number(*s.attention_factor));
      if (!s.truncate) out += ", truncate: false";  // GPT-OSS's unrounded range, which a diagnosis may name
      out += ")";
      break;
    case ScalingType::llama3:
      out += fmt::format(", llama3 scaling (factor {}, low {}, high {}, original {})", number(s.factor),
                         number(s.low_freq_factor), number(s.high_freq_factor), s.original_max_position);
      break;
    case ScalingType::longrope:
      out += fmt::format(", longrope scaling ({} short/long factors, original {}{}{})", s.short_factor.size(),
                         s.original_max_position,
                         c.max_position_embeddings ? fmt::format(", max {}", *c.max_position_embeddings) : "",
                         s.factor_switch == FactorSwitch::length ? ""
                                                                 : fmt::format(", switch by {}", name(s.factor_switch)));
      break;
  }
  return out;
}

std::string describe(const EncodeConvention& c) {
  std::string out = fmt::format("base {}, schedule {}", number(c.base), name(c.schedule));
  if (c.position_offset != 0) out += fmt::format(", position_offset {}", c.position_offset);
  if (c.amplitude != 1) out += fmt::format(", amplitude {}", number(c.amplitude));
  out += fmt::format(", {} layout", c.layout == Layout::halves ? "halves" : "interleaved");
  return out;
}

json rotate_params(const RotateConvention& c) {
  const Layout layout = c.layout == Layout::unspecified ? Layout::interleaved : c.layout;
  json out = {{"base", c.base}, {"layout", std::string(name(layout))}};
  if (c.rotary_dim) out["rotary_dim"] = *c.rotary_dim;
  if (c.rotary_fraction) out["rotary_fraction"] = *c.rotary_fraction;
  if (c.max_position_embeddings) out["max_position_embeddings"] = *c.max_position_embeddings;
  if (!c.freq_factors.empty()) out["freq_factors"] = c.freq_factors;
  if (c.multi_axis()) out["mrope_section"] = c.mrope_section;
  if (c.mrope_interleaved) out["mrope_interleaved"] = true;
  if (c.decoupled()) {
    out["qk_rope_head_dim"] = *c.qk_rope_head_dim;
    out["qk_nope_head_dim"] = c.qk_nope_head_dim.value_or(0);
  }
  if (c.rope_2d) {
    out["rope_2d"] = {{"axes", c.rope_2d->columns_first ? json::array({"w", "h"}) : json::array({"h", "w"})},
                      {"frequencies", std::string(name(c.rope_2d->frequencies))}};
  }
  const RopeScaling& s = c.scaling;
  if (s.type == ScalingType::none) return out;
  json scaling = {{"type", std::string(name(s.type))}};
  if (s.type != ScalingType::longrope || s.factor != 1) scaling["factor"] = s.factor;
  if (s.type == ScalingType::dynamic_ntk || s.type == ScalingType::yarn || s.type == ScalingType::llama3 ||
      s.type == ScalingType::longrope) {
    scaling["original_max_position"] = s.original_max_position;
  }
  if (s.type == ScalingType::yarn) {
    scaling["beta_fast"] = s.beta_fast;
    scaling["beta_slow"] = s.beta_slow;
    if (s.mscale) scaling["mscale"] = *s.mscale;
    if (s.mscale_all_dim) scaling["mscale_all_dim"] = *s.mscale_all_dim;
    if (!s.truncate) scaling["truncate"] = false;
  }
  if (s.type == ScalingType::llama3) {
    scaling["low_freq_factor"] = s.low_freq_factor;
    scaling["high_freq_factor"] = s.high_freq_factor;
  }
  if (s.type == ScalingType::longrope) {
    scaling["short_factor"] = s.short_factor;
    scaling["long_factor"] = s.long_factor;
    if (s.factor_switch != FactorSwitch::length) scaling["factor_switch"] = std::string(name(s.factor_switch));
  }
  if (s.attention_factor && (s.type == ScalingType::yarn || s.type == ScalingType::longrope)) {
    scaling["attention_factor"] = *s.attention_factor;
  }
  out["scaling"] = scaling;
  return out;
}

json encode_params(const EncodeConvention& c) {
  return {{"base", c.base},
          {"schedule", std::string(name(c.schedule))},
          {"position_offset", c.position_offset},
          {"amplitude", c.amplitude},
          {"layout", c.layout == Layout::halves ? "halves" : "interleaved"}};
}

std::vector<Identification> identify(Subject& subject, const ErrorModel& model, Position max_position) {
  const detail::Precision precision = detail::Precision::of(BoundModel(model, "identify", subject.info()));
  std::vector<Identification> out;
  if (subject.info().supports(Op::encode)) out.push_back(detail::identify_encoder(subject, precision, max_position));
  if (subject.info().supports(Op::rotate)) out.push_back(detail::identify_rotary(subject, precision, max_position));
  if (subject.info().supports(Op::attention)) out.push_back(detail::identify_attention(subject, precision));
  return out;
}

json hello_for(const SubjectInfo& subject, const std::vector<Identification>& found) {
  json ops = json::array();
  for (const auto& f : found) ops.push_back(f.op);
  json hello = {{"protocol", 2}, {"name", subject.name}, {"ops", ops}, {"dtype", std::string(name(subject.dtype))}};
  json compute = json::object();
  if (subject.compute.angles) compute["angles"] = std::string(name(*subject.compute.angles));
  if (subject.compute.accumulate) compute["accumulate"] = std::string(name(*subject.compute.accumulate));
  if (!compute.empty()) hello["compute"] = compute;
  json params = json::object();
  for (const auto& f : found) {
    if (f.fits && !f.params.is_null()) params[f.op] = f.params;
  }
  if (!params.empty()) hello["params"] = params;
  return hello;
}

namespace detail {

Matrix probe_vectors(Eigen::Index rows, int dim, std::uint64_t seed) {
  gen::FastRandom r(seed);
  Matrix m(rows, dim);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = r.uniform(-4.0, 4.0);
  return m;
}

std::string span_of(const std::vector<Positions>& positions, const std::vector<int>& dims) {
  Position lo = 0, hi = 0;
  bool first = true;
  size_t count = 0;
  for (const auto& ts : positions) {
    for (Position t : ts) {
      lo = first ? t : std::min(lo, t);
      hi = first ? t : std::max(hi, t);
      first = false;
      ++count;
    }
  }
  std::string widths;
  for (int d : dims) widths += fmt::format("{}{}", widths.empty() ? "" : " and ", d);
  return fmt::format("{} answers at d = {}, positions {} to {}", count, widths, lo, hi);
}

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(value)))));
  return std::round(value * scale) / scale;
}

}  // namespace detail

}  // namespace pecheck::identify

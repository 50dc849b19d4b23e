#include "pecheck/core/conventions.h"

#include <algorithm>
#include <cmath>

namespace pecheck {

namespace {
// name()/parse() pairs from one table per enum.
template <class E, std::size_t N>
std::optional<E> parse_from(const std::pair<E, std::string_view> (&table)[N], std::string_view text) {
  for (const auto& [value, label] : table) {
    if (label == text) return value;
  }
  return std::nullopt;
}
template <class E, std::size_t N>
std::string_view name_from(const std::pair<E, std::string_view> (&table)[N], E value) {
  for (const auto& [v, label] : table) {
    if (v == value) return label;
  }
  return "?";
}

constexpr std::pair<Layout, std::string_view> kLayouts[] = {
    {Layout::unspecified, "unspecified"},
    {Layout::interleaved, "interleaved"},
    {Layout::halves, "halves"},
    {Layout::interleave_then_halves, "interleave_then_halves"}};
constexpr std::pair<Schedule, std::string_view> kSchedules[] = {{Schedule::two_i_over_d, "2i/d"},
                                                                {Schedule::i_over_h_minus_1, "i/(h-1)"}};
constexpr std::pair<ScalingType, std::string_view> kScalings[] = {
    {ScalingType::none, "none"}, {ScalingType::linear, "linear"}, {ScalingType::ntk, "ntk"},
    {ScalingType::dynamic_ntk, "dynamic_ntk"}, {ScalingType::yarn, "yarn"}, {ScalingType::llama3, "llama3"},
    {ScalingType::longrope, "longrope"}};
constexpr std::pair<FactorSwitch, std::string_view> kFactorSwitches[] = {
    {FactorSwitch::length, "length"}, {FactorSwitch::position, "position"}, {FactorSwitch::context, "context"}};
constexpr std::pair<BiasScheme, std::string_view> kBiasSchemes[] = {{BiasScheme::alibi, "alibi"},
                                                                    {BiasScheme::t5, "t5"}};
constexpr std::pair<Positional, std::string_view> kPositionals[] = {
    {Positional::none, "none"}, {Positional::absolute, "absolute"}, {Positional::relative, "relative"}};
constexpr std::pair<Alignment, std::string_view> kAlignments[] = {{Alignment::top_left, "top_left"},
                                                                  {Alignment::bottom_right, "bottom_right"}};
constexpr std::pair<PositionsSource, std::string_view> kPositionsSources[] = {
    {PositionsSource::given, "given"}, {PositionsSource::from_padding, "from_padding"}};
constexpr std::pair<Grouping, std::string_view> kGroupings[] = {{Grouping::repeat_interleave, "repeat_interleave"},
                                                                {Grouping::tile, "tile"}};
constexpr std::pair<FullyMasked, std::string_view> kFullyMasked[] = {{FullyMasked::refuse, "refuse"},
                                                                     {FullyMasked::zeros, "zeros"}};
constexpr std::pair<Frequencies2d, std::string_view> kFrequencies2d[] = {{Frequencies2d::even_odd, "even_odd"},
                                                                         {Frequencies2d::halves, "halves"}};
}  // namespace

std::string_view name(Frequencies2d frequencies) { return name_from(kFrequencies2d, frequencies); }
std::optional<Frequencies2d> parse_frequencies_2d(std::string_view text) { return parse_from(kFrequencies2d, text); }

std::string_view name(Alignment alignment) { return name_from(kAlignments, alignment); }
std::optional<Alignment> parse_alignment(std::string_view text) { return parse_from(kAlignments, text); }
std::string_view name(PositionsSource source) { return name_from(kPositionsSources, source); }
std::optional<PositionsSource> parse_positions_source(std::string_view text) {
  return parse_from(kPositionsSources, text);
}
std::string_view name(Layout layout) { return name_from(kLayouts, layout); }
std::optional<Layout> parse_layout(std::string_view text) { return parse_from(kLayouts, text); }
std::string_view name(Schedule schedule) { return name_from(kSchedules, schedule); }
std::optional<Schedule> parse_schedule(std::string_view text) { return parse_from(kSchedules, text); }
std::string_view name(ScalingType type) { return name_from(kScalings, type); }
std::optional<ScalingType> parse_scaling_type(std::string_view text) { return parse_from(kScalings, text); }
std::string_view name(FactorSwitch rule) { return name_from(kFactorSwitches, rule); }
std::optional<FactorSwitch> parse_factor_switch(std::string_view text) { return parse_from(kFactorSwitches, text); }
std::string_view name(BiasScheme scheme) { return name_from(kBiasSchemes, scheme); }
std::optional<BiasScheme> parse_bias_scheme(std::string_view text) { return parse_from(kBiasSchemes, text); }
std::string_view name(Positional positional) { return name_from(kPositionals, positional); }
std::optional<Positional> parse_positional(std::string_view text) { return parse_from(kPositionals, text); }

std::string_view name(Grouping grouping) { return name_from(kGroupings, grouping); }
std::optional<Grouping> parse_grouping(std::string_view text) { return parse_from(kGroupings, text); }
std::string_view name(FullyMasked policy) { return name_from(kFullyMasked, policy); }
std::optional<FullyMasked> parse_fully_masked(std::string_view text) { return parse_from(kFullyMasked, text); }

int AttentionConvention::kv_head_of(int h, int query_heads, int key_heads, Grouping grouping) {
  if (key_heads <= 0 || query_heads <= 0) return 0;
  if (grouping == Grouping::tile) return h % key_heads;
  return h / std::max(1, query_heads / key_heads);
}

double AttentionConvention::scale_for(Eigen::Index d_head) const {
  if (scale) return *scale;
  return 1.0 / std::sqrt(static_cast<double>(std::max<Eigen::Index>(d_head, 1)));
}

Position AttentionConvention::offset(Eigen::Index n, Eigen::Index m) const {
  return aligned() == Alignment::bottom_right ? static_cast<Position>(m - n) : 0;
}

bool AttentionConvention::causal_sees(Eigen::Index i, Eigen::Index j, Eigen::Index n, Eigen::Index m) const {
  const Position at = static_cast<Position>(i) + offset(n, m);  // the key position query i sits at
  const auto key = static_cast<Position>(j);
  if (key > at) return false;
  if (window && key <= at - *window) return false;
  if (chunk && (key / *chunk != (at < 0 ? -1 : at / *chunk))) return false;
  return true;
}

bool AttentionConvention::any() const {
  return heads || kv_heads || window || chunk || softcap || sinks || scale || alignment || fully_masked ||
         poison_invariance || dual_chunk ||
         grouping != Grouping::repeat_interleave;
}

int RotateConvention::rotary_width(int dim) const {
  if (rotary_dim) return *rotary_dim;
  if (rotary_fraction) return 2 * static_cast<int>(std::floor(*rotary_fraction * dim / 2));
  return dim;
}

int RotateConvention::fixed_pairs() const {
  if (!freq_factors.empty()) return static_cast<int>(freq_factors.size());
  if (scaling.type == ScalingType::longrope && !scaling.short_factor.empty()) {
    return static_cast<int>(scaling.short_factor.size());
  }
  int sections = 0;
  for (int s : mrope_section) sections += s;
  return sections;
}

bool RotateConvention::length_dependent() const {
  return scaling.type == ScalingType::dynamic_ntk ||
         (scaling.type == ScalingType::longrope && scaling.factor_switch != FactorSwitch::context);
}

}  // namespace pecheck

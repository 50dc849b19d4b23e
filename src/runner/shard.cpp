#include "pecheck/runner/shard.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace pecheck {

std::string subject_key(std::string_view spec) {
  std::string out;
  out.reserve(spec.size());
  std::size_t i = 0;
  while (i < spec.size()) {
    const bool space = spec[i] == ' ' || spec[i] == '\t';
    std::size_t j = i;
    while (j < spec.size() && (spec[j] == ' ' || spec[j] == '\t') == space) ++j;
    const std::string_view word = spec.substr(i, j - i);
    const std::size_t last_slash = word.rfind('/');
    if (space || last_slash == std::string_view::npos) {
      out.append(word);
    } else {
      const std::size_t colon = word.find(':');
      if (colon != std::string_view::npos && colon < word.find('/')) out.append(word.substr(0, colon + 1));
      out.append(word.substr(last_slash + 1));
    }
    i = j;
  }
  return out;
}

int shard_of(std::string_view property, const SubjectSpec& subject, int total) {
  return shard_of(property, format_spec(subject), total);
}

int shard_of(std::string_view property, std::string_view subject, int total) {
  if (total < 1) throw std::invalid_argument("shard_of: total must be at least 1");
  const std::string subject_name = subject_key(subject);
  std::string key;
  key.reserve(property.size() + 1 + subject_name.size());
  key.append(property).append("|").append(subject_name);
  return static_cast<int>(fnv1a64(key) % static_cast<std::uint64_t>(total));
}

namespace {

// A whole non-negative decimal number, or nullopt.
std::optional<long long> whole_number(std::string_view text) {
  long long v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < 0) return std::nullopt;
  return v;
}

// Both numbers valid, total ≥ 1 and index in range; `what` names the source in the message.
ShardSpec checked(std::string_view index_text, std::string_view total_text, bool one_based, const std::string& what) {
  const auto index = whole_number(index_text);
  const auto total = whole_number(total_text);
  if (!total || *total < 1 || *total > 1000000) {
    throw std::invalid_argument(
        fmt::format("{}: the number of shards must be a whole number from 1 to 1000000, got '{}'", what, total_text));
  }
  const long long lo = one_based ? 1 : 0;
  const long long hi = one_based ? *total : *total - 1;
  if (!index || *index < lo || *index > hi) {
    throw std::invalid_argument(fmt::format("{}: the shard index must be a whole number from {} to {} ({}-based), got '{}'",
                                            what, lo, hi, one_based ? 1 : 0, index_text));
  }
  return ShardSpec{static_cast<int>(*index - lo), static_cast<int>(*total)};
}

}  // namespace

ShardSpec parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    throw std::invalid_argument(fmt::format("--shard must be I/N (0-based index I of N shards), got '{}'", text));
  }
  return checked(text.substr(0, slash), text.substr(slash + 1), false, "--shard " + std::string(text));
}

std::optional<ShardSpec> shard_from_environment(const Environment& getenv) {
  auto pair = [&](const char* index_name, const char* total_name, bool one_based) -> std::optional<ShardSpec> {
    const char* index = getenv(index_name);
    const char* total = getenv(total_name);
    const bool has_index = index != nullptr && *index != '\0';
    const bool has_total = total != nullptr && *total != '\0';
    if (!has_index && !has_total) return std::nullopt;
    if (has_index != has_total) {
      throw std::invalid_argument(fmt::format("{} is set but {} is not: set both or neither",
                                              has_index ? index_name : total_name, has_index ? total_name : index_name));
    }
    return checked(index, total, one_based, fmt::format("{}={} {}={}", index_name, index, total_name, total));
  };
  const auto gtest = pair("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", false);
  const auto gitlab = pair("CI_NODE_INDEX", "CI_NODE_TOTAL", true);
  if (gtest && gitlab && (gtest->index != gitlab->index || gtest->total != gitlab->total)) {
    // Which one the CI meant cannot be guessed: a wrong guess runs the wrong
    // cells, and the merge then finds a shard missing only at the end.
    throw std::invalid_argument(fmt::format(
        "GTEST_SHARD_INDEX={} GTEST_TOTAL_SHARDS={} ask for shard {}/{} (0-based), but CI_NODE_INDEX={} "
        "CI_NODE_TOTAL={} ask for shard {}/{}: unset one pair, or pass --shard I/N",
        getenv("GTEST_SHARD_INDEX"), getenv("GTEST_TOTAL_SHARDS"), gtest->index, gtest->total,
        getenv("CI_NODE_INDEX"), getenv("CI_NODE_TOTAL"), gitlab->index, gitlab->total));
  }
  return gtest ? gtest : gitlab;
}

std::string shard_sentence(int index, int total, int cells, int total_cells) {
  std::string out = fmt::format("shard {}/{} (0-based): {} of {} cell{}", index, total, cells, total_cells,
                                total_cells == 1 ? "" : "s");
  if (cells == 0) {
    out += total > total_cells ? " (more shards than cells: this one has none)"
                               : " (the hash assigned it none; the other shards hold every cell)";
  }
  return out;
}

}  // namespace pecheck

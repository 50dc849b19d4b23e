#include "runner/refusals.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace pecheck {

namespace {

constexpr std::size_t kKindsKept = 8;      // kinds of reason kept per cell (Coverage::refusals)
constexpr std::size_t kTextsTracked = 4096;  // distinct texts remembered to count variants

// The text with every run of digits (and a decimal point inside one) as '#'.
std::string without_numbers(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isdigit(c) != 0) {
      while (i + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0 ||
                                     (text[i + 1] == '.' && i + 2 < text.size() &&
                                      std::isdigit(static_cast<unsigned char>(text[i + 2])) != 0))) {
        ++i;
      }
      out += '#';
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

void RefusalLog::refused(const std::string& reason) {
  ++streak_;
  ++total_;
  const std::string key = without_numbers(reason);
  auto it = example_of_.find(key);
  if (it == example_of_.end()) {
    if (kinds_.size() >= kKindsKept) return;
    it = example_of_.emplace(key, reason).first;
  }
  ++kinds_[it->second];
  if (texts_seen_.size() < kTextsTracked && texts_seen_.insert(reason).second) ++variants_[it->second];
}

std::string RefusalLog::grouped(std::size_t most) const {
  std::vector<std::pair<std::string, int>> sorted(kinds_.begin(), kinds_.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < sorted.size() && i < most; ++i) {
    const auto& [text, count] = sorted[i];
    constexpr std::size_t kLongest = 160;
    const std::string shown = text.size() > kLongest ? text.substr(0, kLongest) + "…" : text;
    const auto variants = variants_.find(text);
    const bool alike = variants != variants_.end() && variants->second > 1;
    out += fmt::format("{}'{}' ×{}{}", out.empty() ? "" : ", ", shown, count,
                       alike ? fmt::format(" (this and {} more like it with other numbers)", variants->second - 1) : "");
  }
  if (sorted.size() > most) out += fmt::format(", and {} other kind(s)", sorted.size() - most);
  return out;
}

std::string ranges_text(const std::set<int>& values) {
  std::string out;
  auto it = values.begin();
  while (it != values.end()) {
    const int first = *it;
    int last = first;
    auto next = std::next(it);
    // Runs of one step (every width) or two (every even width) read as one range.
    const int step = next != values.end() && (*next - first == 1 || *next - first == 2) ? *next - first : 0;
    while (step > 0 && next != values.end() && *next - last == step) {
      last = *next;
      ++next;
    }
    if (!out.empty()) out += ", ";
    out += last == first ? fmt::format("{}", first) : fmt::format("{}–{}", first, last);
    it = next;
  }
  return out;
}

std::string early_stop_reason(Op op, int answered_cases, const RefusalLog& log) {
  return fmt::format("stopped early: the subject refused {} inputs in a row ({} refused in all, {} answered): {}{}",
                     log.streak(), log.total(), answered_cases, log.grouped(), refusal_advice(op, log));
}

std::string refusal_advice(Op op, const RefusalLog& log) {
  const std::string op_name(name(op));
  std::string out;
  const auto& answered = log.answered_widths;
  const auto& refused = log.refused_widths;
  std::string example = "[128]";
  if (!answered.empty() && answered.size() <= 8) {
    example = "[";
    for (int w : answered) example += fmt::format("{}{}", example.size() > 1 ? ", " : "", w);
    example += "]";
  }
  if (!answered.empty() && !refused.empty()) {
    out += fmt::format(". It answered widths d = {} and refused d = {}", ranges_text(answered), ranges_text(refused));
  } else if (!refused.empty()) {
    out += fmt::format(". It answered no input (refused widths d = {})", ranges_text(refused));
  }
  const std::string axes = op == Op::bias ? "query and key counts (\"n\", \"m\")"
                                          : "widths (\"d\"), and head counts and lengths where they are fixed";
  out += fmt::format(". Declare what it supports, params.{}.shapes (SUBJECT-PROTOCOL.md, \"Declared shapes\"): its {}, "
                     "e.g. {{\"{}\": {{\"shapes\": {{\"{}\": {}}}}}}} — pecheck then draws only inside them",
                     op_name, axes, op_name, op == Op::bias ? "n" : "d", op == Op::bias ? "[1, 64]" : example);
  if (op != Op::bias) {
    const int largest = answered.empty() ? 0 : *answered.rbegin();
    out += largest > 0 ? fmt::format("; or bound the run's widths with --max-width {}", largest)
                       : std::string("; or bound the run's widths with --max-width");
  }
  return out;
}

}  // namespace pecheck

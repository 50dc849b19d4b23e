#include "cli/help_format.h"

#include <cctype>
#include <regex>
#include <string>
#include <vector>

namespace pecheck::cli {

namespace {

// CLI11's type name is "TYPE" or "TYPE:RULE" (a validator's description).
std::pair<std::string, std::string> type_and_rule(const CLI::Option* option) {
  const std::string name = option->get_type_name();
  const auto colon = name.find(':');
  if (colon == std::string::npos) return {name, ""};
  std::string type = name.substr(0, colon), rule = name.substr(colon + 1);
  // "INT in [1, 100]" repeats the type: "1 to 100" reads better.
  if (rule.rfind(type + " ", 0) == 0) rule = rule.substr(type.size() + 1);
  rule = std::regex_replace(rule, std::regex(R"(^in \[(.*), (.*)\]$)"), "$1 to $2");
  // The largest double is no limit a person needs to read.
  rule = std::regex_replace(rule, std::regex(R"(, at most 1\.79769e\+308$)"), "");
  return {type, rule};
}

bool one_word_in_capitals(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool positional) const {
  std::string name = CLI::Formatter::make_option_name(option, positional);
  // "--no-shrink{false}": the value a negated flag stores, not something to type.
  for (auto open = name.find('{'); open != std::string::npos; open = name.find('{')) {
    const auto close = name.find('}', open);
    if (close == std::string::npos) break;
    name.erase(open, close - open + 1);
  }
  return name;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  if (option->get_type_size() == 0) return "";  // a flag takes no value
  const auto [type, rule] = type_and_rule(option);
  // A validator named like a metavariable (SPEC) names the value better than TEXT.
  std::string out = " " + (one_word_in_capitals(rule) ? rule : type == "INT" ? std::string("N") : type);
  if (option->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string desc = option->get_description();
  if (option->get_type_size() == 0) return desc;
  const auto [type, rule] = type_and_rule(option);
  std::vector<std::string> notes;
  if (!rule.empty() && !one_word_in_capitals(rule) && rule != "non-empty") notes.push_back(rule);
  const std::string fallback = option->get_default_str();
  if (!fallback.empty() && fallback != "0" && fallback != "[]" && fallback != "\"\"") {
    notes.push_back("default " + fallback);
  }
  if (notes.empty()) return desc;
  std::string joined;
  for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
  return desc + " [" + joined + "]";
}

}  // namespace pecheck::cli

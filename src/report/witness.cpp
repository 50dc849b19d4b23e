#include "pecheck/report/witness.h"

#include <fmt/format.h>

#include "report/json_text.h"

namespace pecheck {

namespace {

constexpr std::size_t kValueWidth = 60;  // characters of an observed or expected value
constexpr std::size_t kShortArray = 4;   // arrays of at most this many numbers are named among the inputs

using report_text::dump;

std::string clipped(std::string text) {
  if (text.size() <= kValueWidth) return text;
  std::size_t cut = kValueWidth;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return text.substr(0, cut) + "…";
}

// The scalar inputs and short lists of numbers ("dim 4, positions [1, 2]");
// matrices and long lists are left to the full counterexample.
std::string small_inputs(const json& inputs) {
  if (!inputs.is_object()) return {};
  std::string out;
  for (const auto& [key, value] : inputs.items()) {
    bool shown = value.is_number() || value.is_boolean();
    if (value.is_array() && !value.empty() && value.size() <= kShortArray) {
      shown = true;
      for (const auto& v : value) shown = shown && v.is_number();
    }
    if (!shown) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, dump(value));
  }
  return out;
}

constexpr std::size_t kZeroRun = 4;  // zeros in a row worth writing as one "0 ×N"

bool is_zero(const json& v) { return v.is_number() && v.get<double>() == 0; }

void write_readable(const json& v, std::string& out) {
  if (!v.is_array()) {
    out += dump(v);
    return;
  }
  out += '[';
  for (std::size_t i = 0; i < v.size();) {
    if (i > 0) out += ',';
    std::size_t run = 0;
    while (i + run < v.size() && is_zero(v[i + run])) ++run;
    if (run >= kZeroRun) {
      out += fmt::format("0 ×{}", run);
      i += run;
      continue;
    }
    write_readable(v[i], out);
    ++i;
  }
  out += ']';
}

void write_readable_object(const json& v, std::string& out) {
  if (!v.is_object()) return write_readable(v, out);
  out += '{';
  bool first = true;
  for (const auto& [key, value] : v.items()) {
    if (!first) out += ',';
    first = false;
    out += dump(json(key)) + ':';
    write_readable_object(value, out);
  }
  out += '}';
}

}  // namespace

std::string readable(const json& value) {
  std::string out;
  write_readable_object(value, out);
  return out;
}

std::string witness_line(const Counterexample& c) {
  const std::string inputs = small_inputs(c.inputs);
  const bool lower = c.bound_kind == Bound::Kind::lower;
  const std::string where = c.where();
  std::string place = where.empty() ? "" : "at " + where;
  if (!inputs.empty()) place += (place.empty() ? "(" : " (") + inputs + ")";
  return fmt::format("{}{}observed {}, expected {} ({} {:.3g} {} bound {:.3g})", place, place.empty() ? "" : ": ",
                     clipped(dump(c.observed)), clipped(dump(c.expected)), lower ? "measured" : "error", c.error,
                     lower ? "<" : ">", c.tolerance.bound);
}

}  // namespace pecheck

#include "subjects/process/responses.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pecheck/core/escape.h"

namespace pecheck::process {

namespace {

// Bare non-finite tokens become strings that no subject writes by accident
// (a NUL character first), so a quoted "NaN" stays a breach, not a number.
constexpr std::string_view kNaN{"\0NaN", 4};
constexpr std::string_view kInf{"\0Infinity", 9};
constexpr std::string_view kNegInf{"\0-Infinity", 10};

// Rewrites bare NaN / Infinity / -Infinity outside strings; returns false when
// there was none (the line is parsed as it is).
bool quote_non_finite(std::string_view line, std::string& out) {
  bool in_string = false, escaped = false, changed = false;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    std::string_view token, replacement;
    if (c == 'N' && line.substr(i, 3) == "NaN") token = "NaN", replacement = "\"\\u0000NaN\"";
    else if (c == 'I' && line.substr(i, 8) == "Infinity") token = "Infinity", replacement = "\"\\u0000Infinity\"";
    else if (c == '-' && line.substr(i, 9) == "-Infinity") token = "-Infinity", replacement = "\"\\u0000-Infinity\"";
    else continue;
    if (!changed) out.reserve(line.size() + 64);
    changed = true;
    out.append(line.substr(copied, i - copied));
    out.append(replacement);
    i += token.size() - 1;
    copied = i + 1;
  }
  if (changed) out.append(line.substr(copied));
  return changed;
}

bool read_number(const json& value, double& out) {
  if (value.is_number()) {
    out = value.get<double>();
    return true;
  }
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == kNaN) return out = std::numeric_limits<double>::quiet_NaN(), true;
    if (s == kInf) return out = std::numeric_limits<double>::infinity(), true;
    if (s == kNegInf) return out = -std::numeric_limits<double>::infinity(), true;
  }
  return false;
}

// A value as the subject wrote it (bare tokens shown bare again), shortened.
// Arrays and objects are only counted: dumping them recurses, and a subject
// may nest a million levels deep.
std::string brief(const json& value) {
  if (value.is_array()) return fmt::format("an array of {} entries", value.size());
  if (value.is_object()) return fmt::format("an object of {} keys", value.size());
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  for (std::string_view token : {"NaN", "-Infinity", "Infinity"}) {
    const std::string quoted = fmt::format("\"\\u0000{}\"", token);
    for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at)) {
      text.replace(at, quoted.size(), token);
    }
  }
  return show_bytes(text, 80);
}

std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size() || (n == 2 && c < 0xC2)) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

json parse_answer(std::string_view line) {
  std::string quoted;
  const std::string_view text = quote_non_finite(line, quoted) ? std::string_view(quoted) : line;
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw Breach(fmt::format("a line that is not JSON (parse error at byte {})", e.byte));
  }
}

const json& answer_result(const json& answer, RequestId id) {
  if (!answer.is_object()) throw Breach("a JSON value that is not an object");
  const auto id_at = answer.find("id");
  if (id_at == answer.end()) throw Breach("an answer without an id");
  if (!id_at->is_number_integer() || id_at->get<std::int64_t>() != id) {
    throw Breach(fmt::format("id {} instead of {}", brief(*id_at), id));
  }
  const auto result = answer.find("result"), error = answer.find("error");
  if (result != answer.end() && error != answer.end()) throw Breach("an answer with both result and error");
  if (error != answer.end()) {
    if (!error->is_string()) throw Breach(fmt::format("an error that is not a string: {}", brief(*error)));
    throw Refusal(valid_utf8(error->get_ref<const std::string&>().substr(0, 500)));
  }
  if (result == answer.end()) throw Breach("an answer with neither result nor error");
  return *result;
}

Matrix result_matrix(const json& result, Eigen::Index rows, Eigen::Index cols) {
  if (!result.is_array()) throw Breach(fmt::format("a result that is not an array of rows: {}", brief(result)));
  if (static_cast<Eigen::Index>(result.size()) != rows) {
    throw Breach(fmt::format("a result of the wrong shape: {} rows, expected {} ({}×{})", result.size(), rows, rows,
                             cols));
  }
  Matrix m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const json& row = result[static_cast<std::size_t>(r)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw Breach(fmt::format("a result of the wrong shape: row {} {}, expected {} per row ({}×{})", r,
                               row.is_array() ? fmt::format("has {} entries", row.size()) : "is " + brief(row), cols,
                               rows, cols));
    }
    for (Eigen::Index c = 0; c < cols; ++c) {
      const json& value = row[static_cast<std::size_t>(c)];
      if (!read_number(value, m(r, c))) {
        throw Breach(fmt::format("a result whose row {}, column {} is not a number: {}", r, c, brief(value)));
      }
    }
  }
  return m;
}

Hello read_hello(const json& result) {
  if (!result.is_object()) throw Breach(fmt::format("a hello result that is not an object: {}", brief(result)));
  Hello hello;
  const auto protocol = result.find("protocol");
  if (protocol == result.end() || !protocol->is_number_integer() || protocol->get<std::int64_t>() != 1) {
    throw Breach(fmt::format("protocol {} (pecheck speaks protocol 1)",
                             protocol == result.end() ? "missing" : brief(*protocol)));
  }
  const auto name = result.find("name");
  if (name == result.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    throw Breach("a hello without a name");
  }
  hello.name = valid_utf8(name->get_ref<const std::string&>().substr(0, 200));  // cut may split a character

  const auto ops = result.find("ops");
  if (ops == result.end() || !ops->is_array() || ops->empty()) {
    throw Breach("a hello without ops (a non-empty list of encode, attention, rotate)");
  }
  for (const json& op : *ops) {
    const auto parsed = op.is_string() ? parse_op(op.get_ref<const std::string&>()) : std::nullopt;
    if (!parsed || (*parsed != Op::encode && *parsed != Op::attention && *parsed != Op::rotate)) {
      throw Breach(fmt::format("op {} in hello (the protocol has encode, attention, rotate)", brief(op)));
    }
    hello.ops |= static_cast<unsigned>(*parsed);
  }

  const auto dtype = result.find("dtype");
  const std::string dtype_text = dtype != result.end() && dtype->is_string() ? dtype->get<std::string>() : "";
  if (dtype_text != "float64" && dtype_text != "float32" && dtype_text != "bfloat16" && dtype_text != "float16") {
    throw Breach(fmt::format("dtype {} in hello (one of float64, float32, bfloat16, float16)",
                             dtype == result.end() ? "missing" : brief(*dtype)));
  }
  hello.dtype = *parse_dtype(dtype_text);

  const auto layout = result.find("layout");
  if (layout != result.end()) {
    const std::string text = layout->is_string() ? layout->get<std::string>() : "";
    if (text != "interleaved" && text != "halves") {
      throw Breach(fmt::format("layout {} in hello (interleaved or halves)", brief(*layout)));
    }
    hello.layout = *parse_layout(text);
  }
  return hello;
}

std::string show_bytes(std::string_view bytes, std::size_t limit) {
  const std::string_view shown = bytes.substr(0, limit);
  std::string out;
  out.reserve(shown.size() + 16);
  for (std::size_t i = 0; i < shown.size();) {
    const auto c = static_cast<unsigned char>(shown[i]);
    if (c == '\n') out += "\\n", ++i;
    else if (c == '\r') out += "\\r", ++i;
    else if (c == '\t') out += "\\t", ++i;
    else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c), ++i;
    else if (const std::size_t n = utf8_length(shown, i); n > 0) out.append(shown.substr(i, n)), i += n;
    else out += fmt::format("\\x{:02x}", c), ++i;
  }
  if (bytes.size() > shown.size()) out += fmt::format(" ... ({} bytes in all)", bytes.size());
  return out;
}

}  // namespace pecheck::process

#include "protocol/responses.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_set>
#include <vector>

#include "pecheck/core/escape.h"
#include "pecheck/core/strict_json.h"
#include "protocol/base64.h"

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

std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size() || (n == 2 && c < 0xC2)) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}


// The values and shape of a b64le array.
struct Flat {
  std::vector<double> values;
  std::vector<std::int64_t> shape;
};

// A b64le object: from a peer that declared the encoding, read; from one
// that did not, a breach (it may not send what it did not declare).
bool is_b64le(const json& value, Arrays accepted) {
  if (!value.is_object() || !value.contains("b64le")) return false;
  if (accepted != Arrays::b64le) {
    throw Breach("a b64le array, an encoding the subject did not declare (its hello lists no \"b64le\" in "
                 "\"arrays\")");
  }
  return true;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ',';
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

Flat read_b64le(const json& value) {
  for (const auto& [key, entry] : value.items()) {
    if (key != "b64le" && key != "dtype" && key != "shape") {
      throw Breach(fmt::format("a b64le array with the unknown key {}", brief(json(key))));
    }
  }
  const json& text = value["b64le"];
  if (!text.is_string()) throw Breach(fmt::format("a b64le array whose b64le is not a string: {}", brief(text)));
  const auto dtype = value.find("dtype");
  const std::string dtype_text = dtype != value.end() && dtype->is_string() ? dtype->get<std::string>() : "";
  if (dtype_text != "float64" && dtype_text != "float32") {
    throw Breach(fmt::format("a b64le array of dtype {} (float64 or float32)",
                             dtype == value.end() ? "missing" : brief(*dtype)));
  }
  const auto shape = value.find("shape");
  if (shape == value.end() || !shape->is_array()) throw Breach("a b64le array without a shape (a list of sizes)");
  // No answer holds 2^36 values (the line limit is far below): a larger
  // shape is a lie, refused before any multiplication can overflow.
  constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 36;
  Flat flat;
  std::uint64_t count = 1;
  bool too_large = false;
  for (const json& n : *shape) {
    if (!n.is_number_integer() || (!n.is_number_unsigned() && n.get<std::int64_t>() < 0)) {
      throw Breach(fmt::format("a b64le array whose shape holds {}, not a size", brief(n)));
    }
    const std::uint64_t size = n.get<std::uint64_t>();
    too_large = too_large || size > kMaxValues || (size > 0 && count > kMaxValues / size);
    if (!too_large) count *= size;
    flat.shape.push_back(too_large ? 0 : static_cast<std::int64_t>(size));
  }
  if (too_large) throw Breach(fmt::format("a b64le array of shape {}: too large", shape->dump()));
  std::string bytes, why;
  if (!base64_decode(text.get_ref<const std::string&>(), bytes, why)) {
    throw Breach(fmt::format("a b64le array whose base64 is malformed ({})", why));
  }
  const std::uint64_t width = dtype_text == "float64" ? 8 : 4;
  if (bytes.size() != count * width) {
    throw Breach(fmt::format("a b64le array of shape {} {} holding {} bytes, not {}", shape_text(flat.shape),
                             dtype_text, bytes.size(), count * width));
  }
  flat.values.resize(count);
  if (width == 8) read_le_float64(bytes, flat.values.data());
  else read_le_float32(bytes, flat.values.data());
  return flat;
}

Flat read_b64le_shaped(const json& value, std::size_t dims, const std::vector<std::int64_t>& expected) {
  Flat flat = read_b64le(value);
  bool ok = flat.shape.size() == dims;
  for (std::size_t i = 0; ok && i < expected.size(); ++i) ok = expected[i] < 0 || flat.shape[i] == expected[i];
  if (!ok) {
    std::string want = "[";
    for (std::size_t i = 0; i < dims; ++i) {
      if (i) want += ',';
      want += i < expected.size() && expected[i] >= 0 ? std::to_string(expected[i]) : std::string("…");
    }
    throw Breach(fmt::format("a b64le result of shape {}, expected {}", shape_text(flat.shape), want + "]"));
  }
  return flat;
}

// Rows of numbers of one width: `cols` when given (≥ 0), else the first row's.
Matrix json_rows(const json& rows, Eigen::Index cols, std::string_view where) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  if (cols < 0) cols = n == 0 || !rows[0].is_array() ? 0 : static_cast<Eigen::Index>(rows[0].size());
  Matrix m(n, cols);
  for (Eigen::Index r = 0; r < n; ++r) {
    const json& row = rows[static_cast<std::size_t>(r)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw Breach(fmt::format("a result of the wrong shape: {}row {} {}, expected {} per row", where, r,
                               row.is_array() ? fmt::format("has {} entries", row.size()) : "is " + brief(row), cols));
    }
    for (Eigen::Index c = 0; c < cols; ++c) {
      const json& value = row[static_cast<std::size_t>(c)];
      if (!read_number(value, m(r, c))) {
        throw Breach(fmt::format("a result whose {}row {}, column {} is not a number: {}", where, r, c, brief(value)));
      }
    }
  }
  return m;
}

Batch batch_from_flat(const Flat& flat) {
  Batch out;
  const auto rows = flat.shape[1], cols = flat.shape[2];
  for (std::int64_t b = 0; b < flat.shape[0]; ++b) {
    out.emplace_back(Eigen::Map<const Matrix>(flat.values.data() + b * rows * cols, rows, cols));
  }
  return out;
}

}  // namespace

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

json parse_answer(std::string_view line) {
  if (const std::string problem = framing_problem(line); !problem.empty()) throw Breach(problem);
  std::string quoted;
  const std::string_view text = quote_non_finite(line, quoted) ? std::string_view(quoted) : line;
  // Duplicate keys, checked while parsing: nlohmann keeps the last value of a
  // key given twice, so {"id":2,"result":…,"id":1} would pass for an answer to 1.
  try {
    return parse_json_checked(text, 0, [](const JsonShapeFault& fault) {
      throw Breach(fmt::format("an object with the key {} twice", brief(json(fault.key))));
    });
  } catch (const json::parse_error& e) {
    throw Breach(fmt::format("a line that is not JSON (parse error at byte {})", e.byte));
  } catch (const json::out_of_range& e) {
    // 406: a number beyond the range of a double, such as 1e400.
    std::string what = e.what();
    if (const auto at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    throw Breach(fmt::format("a number out of the range of a double ({})", show_bytes(what, 120)));
  } catch (const json::exception& e) {
    throw Breach(fmt::format("a line that cannot be read as JSON ({})", show_bytes(e.what(), 120)));
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

const json& batch_items(const json& result, std::size_t count) {
  if (!result.is_array()) throw Breach(fmt::format("a batch result that is not a list of items: {}", brief(result)));
  if (result.size() != count) {
    throw Breach(fmt::format("a batch result of {} items for {} requests", result.size(), count));
  }
  return result;
}

const json& item_result(const json& item, std::size_t index) {
  if (!item.is_object()) throw Breach(fmt::format("a batch item {} that is not an object: {}", index, brief(item)));
  const auto result = item.find("result"), error = item.find("error");
  for (const auto& [key, value] : item.items()) {
    if (key != "result" && key != "error") {
      throw Breach(fmt::format("a batch item {} with the unknown key {}", index, brief(json(key))));
    }
  }
  if (result != item.end() && error != item.end()) throw Breach(fmt::format("a batch item {} with both result and error", index));
  if (error != item.end()) {
    if (!error->is_string()) throw Breach(fmt::format("a batch item {} whose error is not a string: {}", index, brief(*error)));
    throw Refusal(valid_utf8(error->get_ref<const std::string&>().substr(0, 500)));
  }
  if (result == item.end()) throw Breach(fmt::format("a batch item {} with neither result nor error", index));
  return *result;
}

Matrix result_matrix(const json& result, Eigen::Index rows, Eigen::Index cols, Arrays accepted) {
  if (is_b64le(result, accepted)) {
    const Flat flat = read_b64le_shaped(result, 2, {rows, cols});
    return Eigen::Map<const Matrix>(flat.values.data(), rows, cols);
  }
  if (!result.is_array()) throw Breach(fmt::format("a result that is not an array of rows: {}", brief(result)));
  if (static_cast<Eigen::Index>(result.size()) != rows) {
    throw Breach(fmt::format("a result of the wrong shape: {} rows, expected {} ({}×{})", result.size(), rows, rows,
                             cols));
  }
  try {
    return json_rows(result, cols, "");
  } catch (const Breach& b) {
    // Say which shape was expected as a whole.
    std::string what = b.what();
    if (what.starts_with("a result of the wrong shape")) what += fmt::format(" ({}×{})", rows, cols);
    throw Breach(what);
  }
}

Batch result_batch(const json& result, Eigen::Index batch, Eigen::Index tokens, Arrays accepted) {
  if (is_b64le(result, accepted)) return batch_from_flat(read_b64le_shaped(result, 3, {batch, tokens, -1}));
  if (!result.is_array()) throw Breach(fmt::format("a result that is not an array of sequences: {}", brief(result)));
  if (static_cast<Eigen::Index>(result.size()) != batch) {
    throw Breach(fmt::format("a result of the wrong shape: {} sequences, expected {} ({}×{}×d)", result.size(), batch,
                             batch, tokens));
  }
  Batch out;
  Eigen::Index width = -1;
  for (Eigen::Index b = 0; b < batch; ++b) {
    const json& rows = result[static_cast<std::size_t>(b)];
    if (!rows.is_array() || static_cast<Eigen::Index>(rows.size()) != tokens) {
      throw Breach(fmt::format("a result of the wrong shape: sequence {} {}, expected {} rows ({}×{}×d)", b,
                               rows.is_array() ? fmt::format("has {} rows", rows.size()) : "is " + brief(rows),
                               tokens, batch, tokens));
    }
    out.push_back(json_rows(rows, width, fmt::format("sequence {}, ", b)));
    if (tokens > 0) width = out.back().cols();
  }
  return out;
}

Matrix result_rows(const json& result, Eigen::Index rows, Arrays accepted) {
  if (is_b64le(result, accepted)) {
    const Flat flat = read_b64le_shaped(result, 2, {rows, -1});
    return Eigen::Map<const Matrix>(flat.values.data(), flat.shape[0], flat.shape[1]);
  }
  if (!result.is_array()) throw Breach(fmt::format("a result that is not an array of rows: {}", brief(result)));
  if (static_cast<Eigen::Index>(result.size()) != rows) {
    throw Breach(fmt::format("a result of the wrong shape: {} rows, expected {} (one per token)", result.size(), rows));
  }
  return json_rows(result, -1, "");
}

Vector result_vector(const json& result, Arrays accepted) {
  if (is_b64le(result, accepted)) {
    const Flat flat = read_b64le_shaped(result, 1, {});
    return Eigen::Map<const Vector>(flat.values.data(), static_cast<Eigen::Index>(flat.values.size()));
  }
  if (!result.is_array()) throw Breach(fmt::format("a result that is not an array of numbers: {}", brief(result)));
  Vector v(static_cast<Eigen::Index>(result.size()));
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!read_number(result[i], v(static_cast<Eigen::Index>(i)))) {
      throw Breach(fmt::format("a result whose entry {} is not a number: {}", i, brief(result[i])));
    }
  }
  return v;
}

void result_null(const json& result) {
  if (!result.is_null()) throw Breach(fmt::format("a result that is not null: {}", brief(result)));
}

Matrix matrix_value(const json& value, Arrays accepted) {
  if (is_b64le(value, accepted)) {
    const Flat flat = read_b64le_shaped(value, 2, {});
    return Eigen::Map<const Matrix>(flat.values.data(), flat.shape[0], flat.shape[1]);
  }
  if (!value.is_array()) throw Breach(fmt::format("a value that is not an array of rows: {}", brief(value)));
  return json_rows(value, -1, "");
}

Batch tensor_value(const json& value, Arrays accepted) {
  if (is_b64le(value, accepted)) return batch_from_flat(read_b64le_shaped(value, 3, {}));
  if (!value.is_array()) throw Breach(fmt::format("a value that is not an array of sequences: {}", brief(value)));
  const Eigen::Index tokens = value.empty() || !value[0].is_array() ? 0 : static_cast<Eigen::Index>(value[0].size());
  return result_batch(value, static_cast<Eigen::Index>(value.size()), tokens, accepted);
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
    else if (shown.substr(i, 3) == "\xEF\xBB\xBF") out += "\\xef\\xbb\\xbf", i += 3;  // a BOM, invisible as text
    else if (const std::size_t n = utf8_length(shown, i); n > 0) out.append(shown.substr(i, n)), i += n;
    else out += fmt::format("\\x{:02x}", c), ++i;
  }
  if (bytes.size() > shown.size()) out += fmt::format(" ... ({} bytes in all)", bytes.size());
  return out;
}

}  // namespace pecheck::process

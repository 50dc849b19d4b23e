#include "protocol/matrix_answer.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

#include "protocol/base64.h"

namespace pecheck::process {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A cursor over the line; every reader returns false to give up.
struct Reader {
  std::string_view s;
  bool b64le = false;  // b64le objects accepted (the subject declared them)
  std::size_t i = 0;

  void skip_space() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    skip_space();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  bool eat_token(std::string_view token) {
    if (s.substr(i, token.size()) != token) return false;
    i += token.size();
    return true;
  }
  // A key without escapes (the only ones accepted here are "id" and "result").
  bool key(std::string_view& out) {
    if (!eat('"')) return false;
    const std::size_t start = i;
    while (i < s.size() && s[i] != '"' && s[i] != '\\') ++i;
    if (i >= s.size() || s[i] != '"') return false;
    out = s.substr(start, i - start);
    ++i;
    return eat(':');
  }
  // The end of a JSON number starting at i (its grammar, no more), or npos.
  std::size_t number_end(bool integer_only) const {
    std::size_t j = i;
    if (j < s.size() && s[j] == '-') ++j;
    if (j >= s.size() || !is_digit(s[j])) return std::string_view::npos;
    if (s[j] == '0') {
      ++j;
    } else {
      while (j < s.size() && is_digit(s[j])) ++j;
    }
    if (integer_only) return j;
    if (j < s.size() && s[j] == '.') {
      if (++j >= s.size() || !is_digit(s[j])) return std::string_view::npos;
      while (j < s.size() && is_digit(s[j])) ++j;
    }
    if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
      ++j;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      if (j >= s.size() || !is_digit(s[j])) return std::string_view::npos;
      while (j < s.size() && is_digit(s[j])) ++j;
    }
    return j;
  }
  bool number(double& out) {
    skip_space();
    if (eat_token("NaN")) return out = std::numeric_limits<double>::quiet_NaN(), true;
    if (eat_token("Infinity")) return out = std::numeric_limits<double>::infinity(), true;
    if (eat_token("-Infinity")) return out = -std::numeric_limits<double>::infinity(), true;
    const std::size_t end = number_end(false);
    if (end == std::string_view::npos) return false;
    const auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + end, out);
    if (ec != std::errc() || ptr != s.data() + end) return false;  // out of range: let the general path judge
    // An integer token is an integer to a JSON reader: "-0" is 0, not -0.0.
    if (out == 0 && s.find_first_of(".eE", i) >= end) out = 0.0;
    i = end;
    return true;
  }
  bool integer(std::int64_t& out) {
    skip_space();
    const std::size_t end = number_end(true);
    if (end == std::string_view::npos || (end < s.size() && (s[end] == '.' || s[end] == 'e' || s[end] == 'E'))) {
      return false;
    }
    const auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + end, out);
    if (ec != std::errc() || ptr != s.data() + end) return false;
    i = end;
    return true;
  }
  // A string of printable ASCII without escapes (what every JSON reader reads alike).
  bool plain_string(std::string_view& out) {
    if (!eat('"')) return false;
    const std::size_t start = i;
    while (i < s.size() && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 && s[i] < 0x7f) ++i;
    if (i >= s.size() || s[i] != '"') return false;
    out = s.substr(start, i - start);
    ++i;
    return true;
  }
  // The text of a b64le string, up to the next quote: base64_decode refuses
  // anything in it that is not base64 (an escape, a control character), and
  // the general reader then judges the line.
  bool b64_text(std::string_view& out) {
    if (!eat('"')) return false;
    const std::size_t end = s.find('"', i);
    if (end == std::string_view::npos) return false;
    out = s.substr(i, end - i);
    i = end + 1;
    return true;
  }
  bool expect_key(std::string_view name) {
    std::string_view got;
    return key(got) && got == name;
  }
  // {"b64le":"…","dtype":"float64"|"float32","shape":[rows,cols]}, keys in
  // this order (as the Python package writes them), bytes exactly rows·cols.
  bool b64le_matrix(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    std::string_view text, dtype;
    std::int64_t r = 0, c = 0;
    if (!eat('{') || !expect_key("b64le") || !b64_text(text) || !eat(',') || !expect_key("dtype") ||
        !plain_string(dtype) || !eat(',') || !expect_key("shape") || !eat('[') || !integer(r) || !eat(',') ||
        !integer(c) || !eat(']') || !eat('}')) {
      return false;
    }
    const std::size_t width = dtype == "float64" ? 8 : dtype == "float32" ? 4 : 0;
    if (width == 0 || r != rows || c != cols) return false;
    if (!base64_decode(text, bytes, why) || bytes.size() != static_cast<std::size_t>(rows * cols) * width) return false;
    m.resize(rows, cols);  // row-major, as the bytes are
    if (width == 8) read_le_float64(bytes, m.data());
    else read_le_float32(bytes, m.data());
    return true;
  }
  // Rows of numbers, or a b64le object.
  bool any_matrix(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    skip_space();
    if (i < s.size() && s[i] == '{') return b64le && b64le_matrix(m, rows, cols);
    return matrix(m, rows, cols);
  }
  std::string bytes, why;  // b64le scratch, reused across a batch

  bool matrix(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    if (!eat('[')) return false;
    m.resize(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r) {
      if ((r > 0 && !eat(',')) || !eat('[')) return false;
      for (Eigen::Index c = 0; c < cols; ++c) {
        if ((c > 0 && !eat(',')) || !number(m(r, c))) return false;
      }
      if (!eat(']')) return false;
    }
    return eat(']');
  }
};

}  // namespace

std::optional<Matrix> quick_matrix_answer(std::string_view line, RequestId id, Eigen::Index rows,
                                          Eigen::Index cols, Arrays accepted) {
  Reader in{line, accepted == Arrays::b64le};
  Matrix m;
  bool have_id = false, have_result = false;
  if (!in.eat('{')) return std::nullopt;
  for (int field = 0; field < 2; ++field) {
    if (field > 0 && !in.eat(',')) return std::nullopt;
    std::string_view key;
    if (!in.key(key)) return std::nullopt;
    if (key == "id" && !have_id) {
      std::int64_t got = 0;
      if (!in.integer(got) || got != id) return std::nullopt;
      have_id = true;
    } else if (key == "result" && !have_result) {
      if (!in.any_matrix(m, rows, cols)) return std::nullopt;
      have_result = true;
    } else {
      return std::nullopt;
    }
  }
  if (!in.eat('}')) return std::nullopt;
  in.skip_space();
  if (in.i != line.size()) return std::nullopt;
  return m;
}

std::optional<std::vector<QuickItem>> quick_batch_answer(std::string_view line, RequestId id,
                                                         std::span<const MatrixShape> shapes, Arrays accepted) {
  Reader in{line, accepted == Arrays::b64le};
  std::vector<QuickItem> items;
  items.reserve(shapes.size());
  std::string_view key;
  std::int64_t got = 0;
  if (!in.eat('{') || !in.key(key) || key != "id" || !in.integer(got) || got != id || !in.eat(',') ||
      !in.key(key) || key != "result" || !in.eat('[')) {
    return std::nullopt;
  }
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    if ((k > 0 && !in.eat(',')) || !in.eat('{') || !in.key(key)) return std::nullopt;
    if (key == "result") {
      Matrix m;
      if (!in.any_matrix(m, shapes[k].rows, shapes[k].cols)) return std::nullopt;
      items.emplace_back(std::move(m));
    } else if (key == "error") {
      std::string_view text;
      if (!in.plain_string(text)) return std::nullopt;
      items.emplace_back(std::string(text));
    } else {
      return std::nullopt;
    }
    if (!in.eat('}')) return std::nullopt;
  }
  if (!in.eat(']') || !in.eat('}')) return std::nullopt;
  in.skip_space();
  if (in.i != line.size()) return std::nullopt;
  return items;
}

}  // namespace pecheck::process

#include "pecheck/result/check.h"

#include <fmt/format.h>

namespace pecheck {

Bound Bound::upper(double work, double scale, std::string what, Stage stage) {
  Bound b;
  b.kind = Kind::upper;
  b.terms.push_back({stage, work, scale});
  b.what = std::move(what);
  return b;
}

Bound Bound::lower(double work, double scale, std::string what, Stage stage) {
  Bound b = upper(work, scale, std::move(what), stage);
  b.kind = Kind::lower;
  return b;
}

Bound Bound::exact(std::string why) {
  Bound b;
  b.kind = Kind::exact;
  b.what = std::move(why);
  return b;
}

Bound& Bound::plus(Stage stage, double work, double scale, const std::string& words) {
  terms.push_back({stage, work, scale});
  what += (what.empty() ? "" : " + ") + words;
  return *this;
}

Bound& Bound::plus_fixed(double value, std::string why) {
  fixed += value;
  fixed_why = std::move(why);
  return *this;
}

Bound& Bound::at_most(double largest_possible_error) {
  ceiling = largest_possible_error;
  return *this;
}

Bound& Bound::same_dtype(double reference_error, std::string words) {
  tight = TightBound{TightBound::Kind::same_dtype, reference_error, 1, std::move(words)};
  return *this;
}

Bound& Bound::probabilistic(double paths, std::string words) {
  tight = TightBound{TightBound::Kind::probabilistic, 0, paths, std::move(words)};
  return *this;
}

namespace {

// Each index with its name, in the order a person reads them.
template <class F>
void for_each_index(const Location& w, F f) {
  if (w.batch) f("sequence", *w.batch);
  if (w.position && w.other_position) {
    f("positions", *w.position);
    f("and", *w.other_position);
  } else if (w.position) {
    f("position", *w.position);
  }
  if (w.token) f("token", *w.token);
  if (w.query) f("query", *w.query);
  if (w.key) f("key", *w.key);
  if (w.head) f("head", *w.head);
  if (w.pair) f("pair", *w.pair);
  if (w.row) f("row", *w.row);
  if (w.component) f("component", *w.component);
  if (w.column) f("column", *w.column);
}

}  // namespace

std::string describe(const Location& w) {
  std::string out = w.label;
  for_each_index(w, [&out](const char* key, std::int64_t value) {
    const bool joined = std::string_view(key) == "and";
    out += fmt::format("{}{} {}", out.empty() ? "" : (joined ? " " : ", "), key, value);
  });
  return out;
}

json to_json(const Location& w) {
  json j = json::object();
  auto put = [&j](const char* key, const auto& value) {
    if (value) j[key] = *value;
  };
  put("row", w.row);
  put("column", w.column);
  put("position", w.position);
  put("other_position", w.other_position);
  put("query", w.query);
  put("key", w.key);
  put("head", w.head);
  put("token", w.token);
  put("pair", w.pair);
  put("component", w.component);
  put("batch", w.batch);
  if (!w.label.empty()) j["label"] = w.label;
  return j;
}

Location location_from_json(const json& j) {
  Location w;
  if (!j.is_object()) return w;
  auto get = [&j](const char* key, auto& field) {
    if (j.contains(key) && j[key].is_number_integer()) field = j[key].get<std::int64_t>();
  };
  get("row", w.row);
  get("column", w.column);
  get("position", w.position);
  get("other_position", w.other_position);
  get("query", w.query);
  get("key", w.key);
  get("head", w.head);
  get("token", w.token);
  get("pair", w.pair);
  get("component", w.component);
  get("batch", w.batch);
  if (j.contains("label") && j["label"].is_string()) w.label = j["label"].get<std::string>();
  return w;
}

}  // namespace pecheck

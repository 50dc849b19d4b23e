#include <fmt/format.h>

#include <cmath>

#include "pecheck/property/property.h"

namespace pecheck::detail {

namespace {

void collect(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  constexpr double kIntLimit = 2147483648.0;  // 2^31: beyond it, no int field can take the value
  if (j.is_number_float()) {
    if (!(std::fabs(j.get<double>()) < kIntLimit)) out.push_back(at);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) collect(j[i], at / i, out);
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) collect(value, at / key, out);
  }
}

}  // namespace

std::vector<json::json_pointer> wide_floats(const json& inputs) {
  std::vector<json::json_pointer> out;
  collect(inputs, json::json_pointer(), out);
  return out;
}

void refuse_wide(const json::json_pointer& at, const json& value) {
  throw InvalidInput(fmt::format("{}: {} is not a value this field can hold (it takes integers)", at.to_string(),
                                 value.dump()));
}

}  // namespace pecheck::detail

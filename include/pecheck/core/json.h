#pragma once
// JSON for the numeric value types. Non-finite numbers are written as the
// strings "NaN", "Infinity", "-Infinity" (JSON has no tokens for them) and read
// back from those strings or from the bare tokens the subject protocol allows.
#include <nlohmann/json.hpp>

#include "pecheck/core/matrix.h"

namespace pecheck {

using json = nlohmann::json;

json number_to_json(double value);
double number_from_json(const json& value);  // throws std::invalid_argument

json matrix_to_json(const Matrix& m);
Matrix matrix_from_json(const json& rows);   // throws std::invalid_argument on ragged input
json bool_matrix_to_json(const BoolMatrix& m);
BoolMatrix bool_matrix_from_json(const json& rows);

}  // namespace pecheck

namespace nlohmann {
template <>
struct adl_serializer<pecheck::Matrix> {
  static void to_json(json& j, const pecheck::Matrix& m) { j = pecheck::matrix_to_json(m); }
  static void from_json(const json& j, pecheck::Matrix& m) { m = pecheck::matrix_from_json(j); }
};
template <>
struct adl_serializer<pecheck::BoolMatrix> {
  static void to_json(json& j, const pecheck::BoolMatrix& m) { j = pecheck::bool_matrix_to_json(m); }
  static void from_json(const json& j, pecheck::BoolMatrix& m) { m = pecheck::bool_matrix_from_json(j); }
};
}  // namespace nlohmann

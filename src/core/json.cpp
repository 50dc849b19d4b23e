#include "pecheck/core/json.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace pecheck {

json number_to_json(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

double number_from_json(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  throw std::invalid_argument("expected a number, got " + value.dump().substr(0, 40));
}

json matrix_to_json(const Matrix& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(number_to_json(m(r, c)));
    rows.push_back(std::move(row));
  }
  return rows;
}

Matrix matrix_from_json(const json& rows) {
  if (!rows.is_array()) throw std::invalid_argument("expected an array of rows");
  const auto n = static_cast<Eigen::Index>(rows.size());
  const Eigen::Index cols = n == 0 ? 0 : static_cast<Eigen::Index>(rows[0].is_array() ? rows[0].size() : 0);
  Matrix m(n, cols);
  for (Eigen::Index r = 0; r < n; ++r) {
    const json& row = rows[static_cast<size_t>(r)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw std::invalid_argument("row " + std::to_string(r) + " is not an array of " +
                                  std::to_string(cols) + " numbers");
    }
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = number_from_json(row[static_cast<size_t>(c)]);
  }
  return m;
}

json bool_matrix_to_json(const BoolMatrix& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(static_cast<bool>(m(r, c)));
    rows.push_back(std::move(row));
  }
  return rows;
}

BoolMatrix bool_matrix_from_json(const json& rows) {
  if (!rows.is_array()) throw std::invalid_argument("expected an array of rows");
  const auto n = static_cast<Eigen::Index>(rows.size());
  const Eigen::Index cols = n == 0 ? 0 : static_cast<Eigen::Index>(rows[0].size());
  BoolMatrix m(n, cols);
  for (Eigen::Index r = 0; r < n; ++r) {
    const json& row = rows[static_cast<size_t>(r)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw std::invalid_argument("mask row " + std::to_string(r) + " is ragged");
    }
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = row[static_cast<size_t>(c)].get<bool>();
  }
  return m;
}

}  // namespace pecheck

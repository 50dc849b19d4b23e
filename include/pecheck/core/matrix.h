#pragma once
// The numeric value types every layer shares: row-major double matrices (a
// row is a token, a position or a vector, as in the claims) and positions.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace pecheck {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Position = std::int64_t;
using Positions = std::vector<Position>;

}  // namespace pecheck

#pragma once
// The fast path for the answer pecheck reads most: {"id":N,"result":[[..],..]}
// with exactly the expected shape. Parsing matrices through a JSON tree costs
// as much as the subject's own work, so this reads the numbers straight into
// the matrix (std::from_chars, correctly rounded like strtod). It accepts a
// strict subset of what parse_answer + answer_result + result_matrix accept,
// with the same values; anything else (another key, an error, a wrong shape,
// a malformed number) returns nullopt and the general path reads the line
// again and says precisely what is wrong.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pecheck/core/matrix.h"
#include "protocol/requests.h"
#include "protocol/wire.h"

namespace pecheck::process {

// A b64le result only where `accepted` is b64le (the subject declared it).
std::optional<Matrix> quick_matrix_answer(std::string_view line, RequestId id, Eigen::Index rows,
                                          Eigen::Index cols, Arrays accepted = Arrays::json);

// The same for a batch of matrix requests (encode, attention, rotate, bias):
// {"id":N,"result":[{"result":MATRIX}|{"error":"…"},…]}, each item of its
// request's shape; an error text without escapes. An item is the matrix or
// the refusal's text.
struct MatrixShape {
  Eigen::Index rows = 0, cols = 0;
};
using QuickItem = std::variant<Matrix, std::string>;
std::optional<std::vector<QuickItem>> quick_batch_answer(std::string_view line, RequestId id,
                                                         std::span<const MatrixShape> shapes,
                                                         Arrays accepted = Arrays::json);

}  // namespace pecheck::process

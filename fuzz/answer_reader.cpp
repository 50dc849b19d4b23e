// Fuzz target: one line a subject process could write (SUBJECT-PROTOCOL.md),
// through every reader of answers in src/subjects/process/: parse_answer,
// answer_result, result_matrix, read_hello, the batch readers, and the fast
// paths quick_matrix_answer and quick_batch_answer. A subject is untrusted:
// any line must end as a value, a Breach, a Refusal or (a hello declaring
// what pecheck cannot accept) a BadDeclaration — never a crash, a sanitizer
// report or a hang.
//
// It is also a differential check: the fast paths promise to accept a
// strict subset of what the general path accepts, with the same values
// (matrix_answer.h); a line where they disagree aborts.
//
// Input: one shape byte, then the line. The shape byte's low 3 bits are the
// expected rows, the next 4 the expected columns; with the top bit set the
// expected id and shape are taken from the answer itself, so the success
// paths are reached as often as the refusals. Every line is read twice: from
// a subject that declared b64le arrays and from one that did not (whose
// b64le objects are breaches on both paths).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "protocol/matrix_answer.h"
#include "protocol/responses.h"

using namespace pecheck;
using namespace pecheck::process;

namespace {

[[noreturn]] void disagree(const char* what, std::string_view line) {
  std::fprintf(stderr, "the fast path and the general path disagree: %s\nline: %.*s\n", what,
               static_cast<int>(line.size()), line.data());
  std::abort();
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool same_matrix(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (!same_value(a.data()[i], b.data()[i])) return false;
  }
  return true;
}

// The shape a result claims: a b64le object's [rows, cols], or rows of numbers.
std::optional<std::pair<Eigen::Index, Eigen::Index>> shape_of(const json* result) {
  if (result == nullptr) return std::nullopt;
  if (result->is_object()) {
    const auto s = result->find("shape");
    if (s != result->end() && s->is_array() && s->size() == 2 && (*s)[0].is_number_unsigned() &&
        (*s)[1].is_number_unsigned() && (*s)[0].get<std::uint64_t>() < 64 && (*s)[1].get<std::uint64_t>() < 64) {
      return std::pair<Eigen::Index, Eigen::Index>((*s)[0].get<Eigen::Index>(), (*s)[1].get<Eigen::Index>());
    }
    return std::nullopt;
  }
  if (!result->is_array()) return std::nullopt;
  const auto rows = static_cast<Eigen::Index>(result->size());
  return std::pair<Eigen::Index, Eigen::Index>(
      rows, rows > 0 && (*result)[0].is_array() ? static_cast<Eigen::Index>((*result)[0].size()) : 0);
}

// A batch answer read by quick_batch_answer must read the same through the
// general path: batch_items, item_result, result_matrix (a refusal's text alike).
void check_batch(std::string_view line, const json& answer, RequestId id, Arrays accepted) {
  const auto result = answer.find("result");
  if (result == answer.end() || !result->is_array()) return;
  std::vector<MatrixShape> shapes;
  for (const json& item : *result) {
    const json* inner = item.is_object() && item.contains("result") ? &item["result"] : nullptr;
    const auto s = shape_of(inner);
    shapes.push_back(s ? MatrixShape{s->first, s->second} : MatrixShape{1, 1});
  }
  const auto quick = quick_batch_answer(line, id, shapes, accepted);
  if (!quick) return;
  try {
    const json& items = batch_items(answer_result(answer, id), shapes.size());
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      try {
        const Matrix m = result_matrix(item_result(items[k], k), shapes[k].rows, shapes[k].cols, accepted);
        const auto* q = std::get_if<Matrix>(&(*quick)[k]);
        if (q == nullptr || !same_matrix(*q, m)) disagree("a batch item differs", line);
      } catch (const Refusal& r) {
        const auto* q = std::get_if<std::string>(&(*quick)[k]);
        if (q == nullptr || *q != r.what()) disagree("a batch item's refusal differs", line);
      }
    }
  } catch (const Breach&) {
    disagree("the fast batch path accepted a line the general path refuses", line);
  } catch (const Refusal&) {
    disagree("the fast batch path accepted a batch the general path reads as refused whole", line);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t shape = data[0];
  const std::string_view line(reinterpret_cast<const char*>(data + 1), size - 1);
  Eigen::Index rows = shape & 0x7, cols = (shape >> 3) & 0xF;
  RequestId id = 1;

  std::optional<json> answer;
  try {
    answer = parse_answer(line);
  } catch (const Breach&) {
  }
  if (answer && (shape & 0x80) != 0 && answer->is_object()) {
    const auto at = answer->find("id");
    if (at != answer->end() && at->is_number_integer()) id = at->get<std::int64_t>();
    const auto result = answer->find("result");
    if (result != answer->end() && result->is_array()) {
      rows = static_cast<Eigen::Index>(result->size());
      cols = rows > 0 && (*result)[0].is_array() ? static_cast<Eigen::Index>((*result)[0].size()) : 0;
    }
    if (const auto s = shape_of(result != answer->end() ? &*result : nullptr)) std::tie(rows, cols) = *s;
  }

  for (const Arrays accepted : {Arrays::json, Arrays::b64le}) {
    std::optional<Matrix> general;
    if (answer) {
      try {
        const json& result = answer_result(*answer, id);
        try {
          general = result_matrix(result, rows, cols, accepted);
        } catch (const Breach&) {
        }
        try {
          (void)read_hello(result);
        } catch (const Breach&) {
        } catch (const BadDeclaration&) {
        }
      } catch (const Breach&) {
      } catch (const Refusal&) {
      }
    }
    if (answer && answer->is_object()) check_batch(line, *answer, id, accepted);

    const std::optional<Matrix> quick = quick_matrix_answer(line, id, rows, cols, accepted);
    if (quick) {
      if (!general) disagree("the fast path accepted a line the general path refuses", line);
      if (quick->rows() != general->rows() || quick->cols() != general->cols()) disagree("shapes differ", line);
      for (Eigen::Index r = 0; r < quick->rows(); ++r) {
        for (Eigen::Index c = 0; c < quick->cols(); ++c) {
          if (!same_value((*quick)(r, c), (*general)(r, c))) disagree("values differ", line);
        }
      }
    }
  }
  (void)show_bytes(line);  // every broken answer is shown through it
  return 0;
}

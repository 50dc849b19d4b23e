// Fuzz target: one line a subject process could write (SUBJECT-PROTOCOL.md),
// through every reader of answers in src/subjects/process/: parse_answer,
// answer_result, result_matrix, read_hello, and the fast matrix path
// quick_matrix_answer. A subject is untrusted: any line must end as a value,
// a Breach or a Refusal — never a crash, a sanitizer report or a hang.
//
// It is also a differential check: quick_matrix_answer promises to accept a
// strict subset of what the general path accepts, with the same values
// (matrix_answer.h); a line where they disagree aborts.
//
// Input: one shape byte, then the line. The shape byte's low 3 bits are the
// expected rows, the next 4 the expected columns; with the top bit set the
// expected id and shape are taken from the answer itself, so the success
// paths are reached as often as the refusals.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "subjects/process/hello.h"
#include "subjects/process/matrix_answer.h"
#include "subjects/process/responses.h"

using namespace pecheck;
using namespace pecheck::process;

namespace {

[[noreturn]] void disagree(const char* what, std::string_view line) {
  std::fprintf(stderr, "quick_matrix_answer and the general path disagree: %s\nline: %.*s\n", what,
               static_cast<int>(line.size()), line.data());
  std::abort();
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

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
  }

  std::optional<Matrix> general;
  if (answer) {
    try {
      const json& result = answer_result(*answer, id);
      try {
        general = result_matrix(result, rows, cols);
      } catch (const Breach&) {
      }
      try {
        (void)read_hello(result);
      } catch (const Breach&) {
      }
    } catch (const Breach&) {
    } catch (const Refusal&) {
    }
  }
  (void)show_bytes(line);  // every broken answer is shown through it

  const std::optional<Matrix> quick = quick_matrix_answer(line, id, rows, cols);
  if (quick) {
    if (!general) disagree("the fast path accepted a line the general path refuses", line);
    if (quick->rows() != general->rows() || quick->cols() != general->cols()) disagree("shapes differ", line);
    for (Eigen::Index r = 0; r < quick->rows(); ++r) {
      for (Eigen::Index c = 0; c < quick->cols(); ++c) {
        if (!same_value((*quick)(r, c), (*general)(r, c))) disagree("values differ", line);
      }
    }
  }
  return 0;
}

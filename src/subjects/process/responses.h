#pragma once
// Reading the subject's answers (SUBJECT-PROTOCOL.md): one JSON object per
// line carrying the request's id and either `result` or `error`. Every way an
// answer can break the protocol is a Breach, described in words; the subject
// process adds which request it was and what came back.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"
#include "subjects/process/requests.h"
#include "pecheck/subjects/subject.h"

namespace pecheck::process {

// What is wrong with an answer, as the end of a sentence ("is not JSON (...)").
struct Breach : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses one line. The bare tokens NaN, Infinity and -Infinity outside strings
// are read as numbers (Python's json.dumps writes them; JSON has none).
json parse_answer(std::string_view line);

// The answer's result. Throws Refusal for an `error` answer, Breach for a
// wrong id or an answer with neither (or both).
const json& answer_result(const json& answer, RequestId id);

// A rows × cols matrix of numbers; anything else (wrong shape, ragged rows,
// strings, booleans) is a Breach naming the first offending entry.
Matrix result_matrix(const json& result, Eigen::Index rows, Eigen::Index cols);

// What a subject says about itself in its answer to hello.
struct Hello {
  std::string name;
  unsigned ops = 0;
  Dtype dtype = Dtype::float64;
  Layout layout = Layout::unspecified;
};
Hello read_hello(const json& result);

// Bytes as a person may safely read them in a report or a terminal: printable
// text and valid UTF-8 kept, newlines as \n, other bytes as \xNN; at most
// `limit` bytes shown, then how many there were in all.
std::string show_bytes(std::string_view bytes, std::size_t limit = 2000);

}  // namespace pecheck::process

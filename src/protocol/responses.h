#pragma once
// Reading the protocol's lines (SUBJECT-PROTOCOL.md): one JSON object per
// line carrying the request's id and either `result` or `error`. Every way an
// answer can break the protocol is a Breach, described in words; the subject
// process adds which request it was and what came back. `pecheck serve`
// reads requests with the same functions (a Breach there is a malformed
// request, refused).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"
#include "pecheck/protocol/calls.h"
#include "protocol/requests.h"
#include "protocol/wire.h"

namespace pecheck::process {

// What is wrong with an answer, as the end of a sentence ("is not JSON (...)").
struct Breach : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses one line: one JSON value and nothing else (whitespace aside). The
// bare tokens NaN, Infinity and -Infinity outside strings are read as numbers
// (Python's json.dumps writes them; JSON has none). A NUL byte anywhere (a
// JSON reader that stops there would ignore what follows), a UTF-8
// byte-order mark, a key given twice in one object (which value would
// count?) and a number beyond the range of a double (1e400) are breaches, as
// is anything not JSON.
json parse_answer(std::string_view line);

// The answer's result. Throws Refusal for an `error` answer, Breach for a
// wrong id or an answer with neither (or both).
const json& answer_result(const json& answer, RequestId id);

// The items of a batch answer's result: a list of `count` objects, each
// {"result":…} or {"error":"…"}. Throws Breach for anything else.
const json& batch_items(const json& result, std::size_t count);
// One item's result; throws Refusal for an error item, Breach otherwise.
const json& item_result(const json& item, std::size_t index);

// Results of the expected shape, as JSON numbers or — where `accepted` is
// b64le, i.e. the peer declared "arrays": ["b64le"] — b64le objects (float64
// or float32, the shape stated and the length exact). Anything else (wrong
// shape, ragged rows, strings, booleans, malformed base64, a b64le object
// from a peer that did not declare it) is a Breach naming the first
// offending entry.
Matrix result_matrix(const json& result, Eigen::Index rows, Eigen::Index cols, Arrays accepted = Arrays::json);
// B sequences of N rows of one width d_out (any width, the same for all).
Batch result_batch(const json& result, Eigen::Index batch, Eigen::Index tokens, Arrays accepted = Arrays::json);
// `rows` rows of any one width (decode of several tokens).
Matrix result_rows(const json& result, Eigen::Index rows, Arrays accepted = Arrays::json);
// A vector of any length.
Vector result_vector(const json& result, Arrays accepted = Arrays::json);
// reset's result.
void result_null(const json& result);

// Arrays of whatever shape they have (serve reads requests with these).
Matrix matrix_value(const json& value, Arrays accepted = Arrays::json);
Batch tensor_value(const json& value, Arrays accepted = Arrays::json);

// Bytes as a person may safely read them in a report or a terminal: printable
// text and valid UTF-8 kept, newlines as \n, other bytes as \xNN; at most
// `limit` bytes shown, then how many there were in all.
std::string show_bytes(std::string_view bytes, std::size_t limit = 2000);

// A value as the subject wrote it (bare tokens shown bare), shortened;
// arrays and objects only counted.
std::string brief(const json& value);

}  // namespace pecheck::process

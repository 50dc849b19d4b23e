// Protocol v2 on the wire (src/protocol/requests.cpp, responses.cpp,
// wire.cpp, base64.cpp, command_line.cpp): the new requests follow the spec,
// b64le arrays read back bit for bit and every malformed one is a breach in
// words, batch answers are read item by item (the fast reader of matrix
// batches agrees with the general one, and leaves it whatever it does not
// read exactly), duplicate keys and numbers beyond a double are breaches, and
// cmd: commands are exec'd directly unless they need a shell.
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "protocol/base64.h"
#include "subjects/process/command_line.h"
#include "protocol/matrix_answer.h"
#include "protocol/requests.h"
#include "protocol/responses.h"
#include "protocol/wire.h"

BOOST_AUTO_TEST_SUITE(test_protocol_v2_wire)

using namespace pecheck;
using namespace pecheck::process;

namespace {

json request_json(const std::string& text) {
  BOOST_REQUIRE(!text.empty() && text.back() == '\n');
  BOOST_REQUIRE(text.find('\n') == text.size() - 1);  // one line
  return parse_answer(text.substr(0, text.size() - 1));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Bitwise equality, NaN payload aside: what b64le promises.
bool same_bits(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (std::isnan(x) != std::isnan(y)) return false;
    if (!std::isnan(x) && std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

Matrix awkward_matrix() {
  Matrix m(3, 4);
  m << 0.1, -0.0, 5e-324, 1e308, std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY, 1.0 / 3.0,
      123456789.123456789, -2.5, 2.2250738585072014e-308, std::nextafter(1.0, 2.0);
  return m;
}

std::string b64le_text(const std::string& bytes, const std::string& dtype, const std::string& shape) {
  return R"({"b64le":")" + base64_encode(bytes) + R"(","dtype":")" + dtype + R"(","shape":)" + shape + "}";
}

// The breach a result raises when read as a 2×2 matrix, or "(none)".
std::string matrix_breach(const std::string& result) {
  try {
    result_matrix(parse_answer(result), 2, 2, Arrays::b64le);
  } catch (const Breach& b) {
    return b.what();
  }
  return "(none)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(base64_matches_rfc_4648_and_refuses_what_is_not_base64) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    BOOST_TEST(base64_encode(plain) == coded);
    std::string back, why;
    BOOST_TEST(base64_decode(coded, back, why));
    BOOST_TEST(back == plain);
  }
  for (const std::string bad : {"Zg=", "Zm9v\n", "Zm 9v", "Z===", "Zg==Zg==", "Zm9-", "Zm9_"}) {
    std::string back, why;
    BOOST_TEST(!base64_decode(bad, back, why), bad);
    BOOST_TEST(!why.empty());
  }
}

// The decoder's branch-free path (whole quads) and its padded last quad
// agree with the encoder at every length, and a bad character anywhere is
// still named by its index (the slow path's message).
BOOST_AUTO_TEST_CASE(base64_round_trips_every_length_and_names_a_bad_character_anywhere) {
  std::uint64_t state = 42;
  auto next = [&state] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (std::size_t length = 0; length < 200; ++length) {
    std::string plain(length, '\0');
    for (char& c : plain) c = static_cast<char>(next() >> 56);
    const std::string coded = base64_encode(plain);
    std::string back, why;
    BOOST_TEST_REQUIRE(base64_decode(coded, back, why), length);
    BOOST_TEST(back == plain, length);
    const std::size_t data = coded.size() - (coded.ends_with("==") ? 2 : coded.ends_with('=') ? 1 : 0);
    for (std::size_t at = 0; at < data; at += 1 + at / 7) {
      for (const char bad : {'-', '=', '\\', ' ', '\x80'}) {
        if (bad == '=' && at + 4 >= coded.size()) continue;  // may make other, valid, padding
        std::string broken = coded;
        broken[at] = bad;
        BOOST_TEST(!base64_decode(broken, back, why));
        BOOST_TEST(why == fmt::format("character {} is not base64", at), why);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_new_requests_follow_the_spec) {
  BOOST_TEST(request_json(hello_request(0)) == json::parse(R"({"id":0,"op":"hello","protocol":2})"));
  BOOST_TEST(request_json(bias_request(4, 5, 6, 2)) == json::parse(R"({"id":4,"op":"bias","n":5,"m":6,"head":2})"));
  Vector x(2);
  x << 1.0, -0.5;
  BOOST_TEST(request_json(decode_request(6, "s1", x, 3)) ==
             json::parse(R"({"id":6,"op":"decode","session":"s1","x":[1.0,-0.5],"position":3})"));
  BOOST_TEST(request_json(reset_request(7, "s\"1")) == json::parse(R"({"id":7,"op":"reset","session":"s\"1"})"));
  // rotate carries seq_len only when given.
  const Matrix m = Matrix::Ones(1, 2);
  BOOST_TEST(!request_json(rotate_request(1, {3}, m)).contains("seq_len"));
  BOOST_TEST(request_json(rotate_request(1, {3}, m, 4096))["seq_len"] == 4096);
  BOOST_TEST(request_json(call_request(1, RotateCall{{3}, m, 17}))["seq_len"] == 17);
  BOOST_TEST(request_json(call_request(1, EncodeCall{4, {0, 1}, 9})) ==
             json::parse(R"({"id":1,"op":"encode","dim":4,"positions":[0,1],"seq_len":9})"));
}

BOOST_AUTO_TEST_CASE(forward_leaves_out_positions_and_padding_where_they_are_the_defaults) {
  ForwardCall call;
  call.x = {Matrix::Zero(3, 2), Matrix::Ones(3, 2)};
  json r = request_json(call_request(5, call));
  BOOST_TEST(r["op"] == "forward");
  BOOST_TEST(r["x"].size() == 2u);
  BOOST_TEST(r["x"][1] == json::parse("[[1.0,1.0],[1.0,1.0],[1.0,1.0]]"));
  BOOST_TEST(!r.contains("positions"));
  BOOST_TEST(!r.contains("padding"));
  // The defaults written out are still left out.
  call.positions = {{0, 1, 2}, {0, 1, 2}};
  call.padding = BoolMatrix::Constant(2, 3, true);
  r = request_json(call_request(5, call));
  BOOST_TEST(!r.contains("positions"));
  BOOST_TEST(!r.contains("padding"));
  // A left-padded row: its positions count from its first real token.
  call.positions = {{0, 1, 2}, {0, 0, 1}};
  call.padding(1, 0) = false;
  r = request_json(call_request(5, call));
  BOOST_TEST(r["positions"] == json::parse("[[0,1,2],[0,0,1]]"));
  BOOST_TEST(r["padding"] == json::parse("[[true,true,true],[false,true,true]]"));
}

BOOST_AUTO_TEST_CASE(batch_requests_carry_their_items_without_ids) {
  const std::vector<Call> calls{EncodeCall{2, {0}, 1}, BiasCall{1, 1, 0}, ResetCall{"a"}};
  const json r = request_json(batch_request(8, calls));
  BOOST_TEST(r["id"] == 8);
  BOOST_TEST(r["op"] == "batch");
  BOOST_TEST(r["requests"] == json::parse(R"([{"op":"encode","dim":2,"positions":[0],"seq_len":1},
                                              {"op":"bias","n":1,"m":1,"head":0},{"op":"reset","session":"a"}])"));
}

BOOST_AUTO_TEST_CASE(b64le_arrays_are_written_and_read_back_bit_for_bit) {
  const Matrix m = awkward_matrix();
  const json r = request_json(rotate_request(3, {0, 1, 2}, m, std::nullopt, Arrays::b64le));
  BOOST_TEST(r["x"]["dtype"] == "float64");
  BOOST_TEST(r["x"]["shape"] == json::parse("[3,4]"));
  BOOST_TEST(same_bits(result_matrix(r["x"], 3, 4, Arrays::b64le), m));
  BOOST_TEST(same_bits(matrix_value(r["x"], Arrays::b64le), m));
  // The same matrix as JSON numbers reads back the same (shortest round-trip text).
  const json plain = request_json(rotate_request(3, {0, 1, 2}, m));
  BOOST_TEST(same_bits(result_matrix(plain["x"], 3, 4), m));
  // Tensors and vectors.
  ForwardCall call;
  call.x = {m, 2 * m};
  const json f = request_json(call_request(1, call, Arrays::b64le));
  BOOST_TEST(f["x"]["shape"] == json::parse("[2,3,4]"));
  const Batch back = result_batch(f["x"], 2, 3, Arrays::b64le);
  BOOST_TEST(same_bits(back[0], m));
  BOOST_TEST(same_bits(back[1], 2 * m));
  Vector v(3);
  v << 1e-300, -7.0, std::numeric_limits<double>::denorm_min();
  const json d = request_json(decode_request(1, "s", v, 0, Arrays::b64le));
  BOOST_TEST(d["x"]["shape"] == json::parse("[3]"));
  BOOST_TEST((result_vector(d["x"], Arrays::b64le) == v));
  // float32 answers read as their exact values.
  const float f32[] = {0.1f, -3.5f, 16777217.0f, 1e-40f};
  const std::string bytes(reinterpret_cast<const char*>(f32), sizeof f32);
  const Matrix read = result_matrix(parse_answer(b64le_text(bytes, "float32", "[2,2]")), 2, 2, Arrays::b64le);
  BOOST_TEST(read(0, 0) == static_cast<double>(0.1f));
  BOOST_TEST(read(1, 0) == static_cast<double>(16777217.0f));
  BOOST_TEST(read(1, 1) == static_cast<double>(1e-40f));
  // Empty shapes.
  BOOST_TEST(result_matrix(parse_answer(b64le_text("", "float64", "[0,4]")), 0, 4, Arrays::b64le).rows() == 0);
}

BOOST_AUTO_TEST_CASE(b64le_arrays_from_a_subject_that_did_not_declare_them_are_breaches) {
  // "arrays": [] (or none) in the hello: every reader refuses the encoding,
  // the fast paths leave the line to the general one, which says why.
  const Matrix m = awkward_matrix();
  const std::string object =
      b64le_text(le_float64_bytes(m.data(), static_cast<std::size_t>(m.size())), "float64", "[3,4]");
  const std::string why = "a b64le array, an encoding the subject did not declare";
  auto breach = [](auto read) -> std::string {
    try {
      read();
    } catch (const Breach& b) {
      return b.what();
    }
    return "(none)";
  };
  BOOST_TEST(contains(breach([&] { result_matrix(parse_answer(object), 3, 4); }), why));
  BOOST_TEST(contains(breach([&] { matrix_value(parse_answer(object)); }), why));
  BOOST_TEST(contains(breach([&] { result_batch(parse_answer(object), 1, 3); }), why));
  BOOST_TEST(contains(breach([&] { result_vector(parse_answer(object)); }), why));
  const std::string line = "{\"id\":3,\"result\":" + object + "}";
  BOOST_TEST(!quick_matrix_answer(line, 3, 3, 4).has_value());
  BOOST_TEST(quick_matrix_answer(line, 3, 3, 4, Arrays::b64le).has_value());
  const std::string batch = "{\"id\":3,\"result\":[{\"result\":" + object + "}]}";
  BOOST_TEST(!quick_batch_answer(batch, 3, std::vector<MatrixShape>{{3, 4}}).has_value());
  BOOST_TEST(quick_batch_answer(batch, 3, std::vector<MatrixShape>{{3, 4}}, Arrays::b64le).has_value());
}

BOOST_AUTO_TEST_CASE(malformed_b64le_arrays_are_breaches_in_words) {
  const std::string four(32, '\0');
  BOOST_TEST(matrix_breach(b64le_text(four, "float64", "[2,2]")) == "(none)");
  BOOST_TEST(matrix_breach(b64le_text(four, "float64", "[4,1]")) == "a b64le result of shape [4,1], expected [2,2]");
  BOOST_TEST(matrix_breach(b64le_text(four, "float64", "[4]")) == "a b64le result of shape [4], expected [2,2]");
  BOOST_TEST(matrix_breach(b64le_text(four.substr(8), "float64", "[2,2]")) ==
             "a b64le array of shape [2,2] float64 holding 24 bytes, not 32");
  BOOST_TEST(matrix_breach(b64le_text(four, "float32", "[2,2]")) ==
             "a b64le array of shape [2,2] float32 holding 32 bytes, not 16");
  BOOST_TEST(contains(matrix_breach(b64le_text(four, "float16", "[2,2]")), "dtype \"float16\" (float64 or float32)"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"AAAA=AAA","dtype":"float64","shape":[2,2]})"),
                      "base64 is malformed (character 4 is not base64)"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"AAA","dtype":"float64","shape":[2,2]})"),
                      "base64 is malformed (its length 3 is not a multiple of 4)"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":17,"dtype":"float64","shape":[2,2]})"), "not a string"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"","dtype":"float64"})"), "without a shape"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"","dtype":"float64","shape":[-1,2]})"), "holds -1, not a size"));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"","dtype":"float64","shape":[2,2],"order":"C"})"),
                      "unknown key \"order\""));
  BOOST_TEST(contains(matrix_breach(R"({"b64le":"","dtype":"float64","shape":[1099511627776,1099511627776]})"),
                      "too large"));
}

BOOST_AUTO_TEST_CASE(tensors_vectors_and_nulls_are_checked_for_shape) {
  auto breach = [](auto read) -> std::string {
    try {
      read();
    } catch (const Breach& b) {
      return b.what();
    }
    return "(none)";
  };
  const json ok = json::parse("[[[1,2],[3,4]],[[5,6],[7,8]]]");
  BOOST_TEST(result_batch(ok, 2, 2)[1](1, 0) == 7.0);
  BOOST_TEST(breach([&] { result_batch(ok, 3, 2); }) == "a result of the wrong shape: 2 sequences, expected 3 (3×2×d)");
  BOOST_TEST(breach([&] { result_batch(ok, 2, 3); }) ==
             "a result of the wrong shape: sequence 0 has 2 rows, expected 3 rows (2×3×d)");
  BOOST_TEST(breach([&] { result_batch(json::parse("[[[1,2],[3,4]],[[5,6],[7]]]"), 2, 2); }) ==
             "a result of the wrong shape: sequence 1, row 1 has 1 entries, expected 2 per row");
  BOOST_TEST(breach([&] { result_batch(json::parse("[[[1,2],[3,true]]]"), 1, 2); }) ==
             "a result whose sequence 0, row 1, column 1 is not a number: true");
  BOOST_TEST(result_batch(json::parse("[[],[]]"), 2, 0).size() == 2u);
  BOOST_TEST(std::isnan(result_vector(parse_answer("[1,NaN]"))(1)));
  BOOST_TEST(breach([&] { result_vector(json::parse("[[1]]")); }) == "a result whose entry 0 is not a number: an array of 1 entries");
  BOOST_TEST(breach([&] { result_null(json::parse("0")); }) == "a result that is not null: 0");
  BOOST_TEST(breach([&] { result_null(json()); }) == "(none)");
}

BOOST_AUTO_TEST_CASE(batch_answers_are_read_item_by_item) {
  const json result = parse_answer(R"([{"result":[[1]]},{"error":"odd dim"},{"result":null}])");
  const json& items = batch_items(result, 3);
  BOOST_TEST(result_matrix(item_result(items[0], 0), 1, 1)(0, 0) == 1.0);
  BOOST_CHECK_THROW(item_result(items[1], 1), Refusal);
  BOOST_CHECK_NO_THROW(result_null(item_result(items[2], 2)));
  auto breach = [](const std::string& text, std::size_t count) -> std::string {
    try {
      const json r = parse_answer(text);
      const json& items = batch_items(r, count);
      for (std::size_t i = 0; i < items.size(); ++i) {
        try {
          item_result(items[i], i);
        } catch (const Refusal&) {
        }
      }
    } catch (const Breach& b) {
      return b.what();
    }
    return "(none)";
  };
  BOOST_TEST(breach(R"([{"result":1}])", 2) == "a batch result of 1 items for 2 requests");
  BOOST_TEST(breach(R"({"result":1})", 1) == "a batch result that is not a list of items: an object of 1 keys");
  BOOST_TEST(breach(R"([7])", 1) == "a batch item 0 that is not an object: 7");
  BOOST_TEST(breach(R"([{"result":1,"error":"x"}])", 1) == "a batch item 0 with both result and error");
  BOOST_TEST(breach(R"([{}])", 1) == "a batch item 0 with neither result nor error");
  BOOST_TEST(breach(R"([{"result":1,"id":3}])", 1) == "a batch item 0 with the unknown key \"id\"");
  BOOST_TEST(breach(R"([{"error":3}])", 1) == "a batch item 0 whose error is not a string: 3");
}

BOOST_AUTO_TEST_CASE(the_fast_batch_reader_agrees_with_the_general_one_or_leaves_the_line_to_it) {
  const Matrix m = awkward_matrix();
  const std::string f64 = le_float64_bytes(m.data(), static_cast<std::size_t>(m.size()));
  std::string f32(12 * 4, '\0');
  for (int i = 0; i < 12; ++i) {
    const float v = static_cast<float>(i) / 7.0f;
    std::memcpy(f32.data() + 4 * i, &v, 4);
  }
  const std::vector<MatrixShape> shapes{{3, 4}, {3, 4}, {1, 2}, {2, 2}};
  const std::string items = "[{\"result\":" + b64le_text(f64, "float64", "[3,4]") + "},{\"result\":" +
                            b64le_text(f32, "float32", "[3,4]") +
                            "},{\"result\":[[1.5,-0]]},{\"error\":\"odd dim: 3 (refused)\"}]";
  const auto quick = quick_batch_answer("{\"id\":7,\"result\":" + items + "}", 7, shapes, Arrays::b64le);
  BOOST_REQUIRE(quick.has_value());
  const json general = batch_items(parse_answer(items), 4);
  for (std::size_t k = 0; k < 3; ++k) {
    const Matrix want = result_matrix(item_result(general[k], k), shapes[k].rows, shapes[k].cols, Arrays::b64le);
    BOOST_TEST(same_bits(std::get<Matrix>((*quick)[k]), want), "item " << k);
  }
  BOOST_TEST(!std::signbit(std::get<Matrix>((*quick)[2])(0, 1)));  // "-0" is the integer 0, as JSON reads it
  BOOST_TEST(std::get<std::string>((*quick)[3]) == "odd dim: 3 (refused)");

  // Anything it does not read exactly goes to the general path, which judges it.
  for (const std::string& line : {
           std::string(R"({"id":7,"result":[{"error":"with \"escapes\""}]})"),         // an escape
           std::string(R"({"id":7,"result":[{"result":[[1,2]],"extra":1}]})"),          // another key
           std::string(R"({"id":7,"result":[{"result":[[1,2,3]]}]})"),                  // another shape
           std::string(R"({"id":8,"result":[{"result":[[1,2]]}]})"),                    // another id
           std::string(R"({"id":7,"result":[{"result":{"dtype":"float64","shape":[1,2],"b64le":"AAAAAAAAAAAAAAAAAAAAAA=="}}]})"),
           std::string(R"({"id":7,"result":[{"result":[[1,2]]},{"result":[[1,2]]}]})"),  // more items
           std::string("{\"id\":7,\"result\":[{\"error\":\"caf\xc3\xa9\"}]}"),         // not ASCII
       }) {
    BOOST_TEST(!quick_batch_answer(line, 7, std::vector<MatrixShape>{{1, 2}}, Arrays::b64le).has_value(), line);
  }
}

BOOST_AUTO_TEST_CASE(duplicate_keys_and_numbers_beyond_a_double_are_breaches) {
  auto breach = [](const std::string& line) -> std::string {
    try {
      parse_answer(line);
    } catch (const Breach& b) {
      return b.what();
    }
    return "(none)";
  };
  BOOST_TEST(breach(R"({"id":2,"result":[[1]],"id":1})") == "an object with the key \"id\" twice");
  BOOST_TEST(breach(R"({"id":1,"result":[[1]],"result":[[2]]})") == "an object with the key \"result\" twice");
  BOOST_TEST(breach(R"({"id":1,"result":[{"result":1,"result":2}]})") == "an object with the key \"result\" twice");
  BOOST_TEST(breach(R"({"id":1,"result":{"a":{"x":1},"b":{"x":1}}})") == "(none)", "the same key in two objects is fine");
  BOOST_TEST(breach(R"({"id":1,"result":[[1e400]]})") ==
             "a number out of the range of a double (number overflow parsing '1e400')");
  BOOST_TEST(breach(R"({"id":1,"result":[[-1e400]]})") ==
             "a number out of the range of a double (number overflow parsing '-1e400')");
  BOOST_TEST(breach(R"({"id":1,"result":[[1e-400]]})") == "(none)", "underflow to zero is a value");
  BOOST_TEST(breach(R"({"id":1,"result":[[Infinity]]})") == "(none)");
}

BOOST_AUTO_TEST_CASE(a_line_is_one_json_value_and_nothing_else) {
  // nlohmann's reader stops at a NUL (what follows was ignored) and skips a
  // byte-order mark: both are breaches, on the general path and the fast ones.
  auto breach = [](const std::string& line) -> std::string {
    try {
      parse_answer(line);
    } catch (const Breach& b) {
      return b.what();
    }
    return "(none)";
  };
  const std::string answer = R"({"id":3,"result":[[1,2]]})";
  const std::string nul = answer + std::string("\0garbage", 8);
  const std::string bom = "\xEF\xBB\xBF" + answer;
  BOOST_TEST(contains(breach(nul), "a NUL byte at byte 25"));
  BOOST_TEST(contains(breach(std::string("{\"id\":3,\"result\":[[1,\0 2]]}", 27)), "a NUL byte at byte 21"));
  BOOST_TEST(contains(breach(bom), "a UTF-8 byte-order mark"));
  BOOST_TEST(contains(breach(answer + " garbage"), "not JSON"));
  BOOST_TEST(breach(answer + " \t\r") == "(none)", "JSON's own whitespace around the value is JSON text");
  BOOST_TEST(!quick_matrix_answer(nul, 3, 1, 2).has_value());
  BOOST_TEST(!quick_matrix_answer(bom, 3, 1, 2).has_value());
  BOOST_TEST(!quick_batch_answer("{\"id\":3,\"result\":[{\"result\":[[1,2]]}]}" + std::string("\0garbage", 8), 3,
                                 std::vector<MatrixShape>{{1, 2}})
                  .has_value());
  BOOST_TEST(!quick_batch_answer("\xEF\xBB\xBF{\"id\":3,\"result\":[{\"result\":[[1,2]]}]}", 3,
                                 std::vector<MatrixShape>{{1, 2}})
                  .has_value());
}

BOOST_AUTO_TEST_CASE(commands_are_exec_d_directly_unless_they_need_a_shell) {
  using Words = std::vector<std::string>;
  const std::pair<std::string, Words> direct[] = {
      {"python3 subject.py", {"python3", "subject.py"}},
      {"  /usr/bin/python3   'my subject.py'  --dtype float32 ", {"/usr/bin/python3", "my subject.py", "--dtype", "float32"}},
      {R"(python3 "a \"quoted\" \\ name" it\'s)", {"python3", R"(a "quoted" \ name)", "it's"}},
      {"exec ./subject --x=1", {"./subject", "--x=1"}},
      {"python3 -c 'print(1); import os'", {"python3", "-c", "print(1); import os"}},
      {"python3 '' x", {"python3", "", "x"}},
      {"cmd a#b c~d", {"cmd", "a#b", "c~d"}},
      {"'FOO=1' x", {"FOO=1", "x"}},
  };
  for (const auto& [command, words] : direct) {
    BOOST_TEST_CONTEXT(command) {
      const auto split = split_command(command);
      BOOST_REQUIRE(split.has_value());
      BOOST_TEST(*split == words, boost::test_tools::per_element());
    }
  }
  for (const std::string shell : {"python3 a.py | tee log", "python3 a.py > out", "python3 a.py 2>&1", "a; b", "a && b",
                                  "a || b", "echo $HOME", "echo `date`", "python3 \"$SCRIPT\"", "python3 *.py",
                                  "python3 a?.py", "python3 [ab].py", "~/bin/subject", "FOO=1 python3 a.py",
                                  "cd dir && python3 a.py", "source env.sh", ". env.sh", "ulimit -v 100000",
                                  "export X=1", "if true", "(python3 a.py)", "{ python3 a.py; }", "a &",
                                  "python3 a.py # comment", "python3 'open", "python3 \"open", "trailing\\",
                                  "a\nb", "exec -a name prog", "exec", "!", "kill -9 $$"}) {
    BOOST_TEST(!split_command(shell).has_value(), shell);
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_protocol_v2_wire

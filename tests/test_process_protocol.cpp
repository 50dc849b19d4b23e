// The subject protocol's wire format (src/protocol/requests.cpp and
// responses.cpp): requests read back as the same numbers, bare non-finite
// tokens are values, and every malformed answer is a breach in words.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "pecheck/core/json.h"
#include "protocol/hello.h"
#include "protocol/matrix_answer.h"
#include "protocol/requests.h"
#include "protocol/responses.h"

BOOST_AUTO_TEST_SUITE(test_process_protocol)

using namespace pecheck;
using namespace pecheck::process;

namespace {
json request_json(const std::string& text) {
  BOOST_REQUIRE(!text.empty() && text.back() == '\n');
  BOOST_REQUIRE(text.find('\n') == text.size() - 1);  // one line
  return parse_answer(text.substr(0, text.size() - 1));
}
double number(const json& j) {
  Matrix m = result_matrix(json::array({json::array({j})}), 1, 1);
  return m(0, 0);
}
}  // namespace

BOOST_AUTO_TEST_CASE(requests_are_one_line_of_json_with_round_tripping_numbers) {
  Matrix x(2, 4);
  x << 0.1, 1.0, -0.0, 1e300, 5e-324, -2.5, 123456789.123456789, 1.0 / 3.0;
  const json r = request_json(rotate_request(7, {0, 5}, x));
  BOOST_TEST(r["id"] == 7);
  BOOST_TEST(r["op"] == "rotate");
  BOOST_TEST(r["positions"] == json::array({0, 5}));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      BOOST_TEST(r["x"][i][j].is_number_float(), "integers must be written as floats");
      BOOST_TEST(r["x"][i][j].get<double>() == x(i, j));
    }
  }
  BOOST_TEST(std::signbit(r["x"][0][2].get<double>()));
  // "1.0", not "1": a Python reader must get floats, not ints.
  BOOST_TEST(rotate_request(7, {0, 5}, x).find("[0.1,1.0,-0.0,1e+300]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(requests_write_non_finite_numbers_as_bare_tokens) {
  Matrix q(1, 3);
  q << std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY;
  const std::string text = attention_request(3, q, q, q, AttentionMask::none());
  BOOST_TEST(text.find("[[NaN,Infinity,-Infinity]]") != std::string::npos, text);
  const json r = request_json(text);
  BOOST_TEST(r["mask"] == "none");
}

BOOST_AUTO_TEST_CASE(requests_carry_every_mask_kind) {
  const Matrix q = Matrix::Ones(2, 1);
  BOOST_TEST(request_json(attention_request(1, q, q, q, AttentionMask::causal()))["mask"] == "causal");
  BoolMatrix allowed(2, 2);
  allowed << true, false, true, true;
  const json r = request_json(attention_request(1, q, q, q, AttentionMask::boolean(allowed)));
  BOOST_TEST(r["mask"] == json::parse("[[true,false],[true,true]]"));
}

BOOST_AUTO_TEST_CASE(hello_encode_and_shutdown_requests_follow_the_spec) {
  BOOST_TEST(request_json(hello_request(0)) == json::parse(R"({"id":0,"op":"hello","protocol":2})"));
  BOOST_TEST(request_json(encode_request(1, 16, {0, 5, 10}, 11)) ==
             json::parse(R"({"id":1,"op":"encode","dim":16,"positions":[0,5,10],"seq_len":11})"));
  BOOST_TEST(request_json(shutdown_request(9)) == json::parse(R"({"id":9,"op":"shutdown"})"));
}

BOOST_AUTO_TEST_CASE(a_fork_request_lists_the_copies_the_zygote_may_reap) {
  // Always present, empty too: a zygote reaps every ended copy only where reap is absent (an older harness).
  BOOST_TEST(request_json(fork_request(3, "/s/0.sock", "/s/0.log", {})) ==
             json::parse(R"({"id":3,"op":"fork","socket":"/s/0.sock","stderr":"/s/0.log","reap":[]})"));
  BOOST_TEST(request_json(fork_request(4, "/s/1.sock", "/s/1.log", {4811, 4812}))["reap"] ==
             json::parse("[4811,4812]"));
}

BOOST_AUTO_TEST_CASE(bare_non_finite_tokens_are_values_and_strings_are_untouched) {
  const json a = parse_answer(R"({"id":1,"result":[[NaN,Infinity,-Infinity, 1.5]],"note":"NaN Infinity"})");
  const Matrix m = result_matrix(answer_result(a, 1), 1, 4);
  BOOST_TEST(std::isnan(m(0, 0)));
  BOOST_TEST(m(0, 1) == INFINITY);
  BOOST_TEST(m(0, 2) == -INFINITY);
  BOOST_TEST(m(0, 3) == 1.5);
  BOOST_TEST(a["note"] == "NaN Infinity");
  // A quoted "NaN" is a string, not the bare token: not a number.
  BOOST_CHECK_THROW(number("NaN"), Breach);
  BOOST_CHECK_THROW(number(true), Breach);
  BOOST_TEST(number(json::parse("2")) == 2.0);
}

BOOST_AUTO_TEST_CASE(malformed_answers_are_breaches_in_words) {
  auto breach = [](const std::string& line, RequestId id = 4) -> std::string {
    try {
      const json a = parse_answer(line);
      result_matrix(answer_result(a, id), 2, 2);
    } catch (const Breach& b) {
      return b.what();
    }
    return "(no breach)";
  };
  BOOST_TEST(breach("not json").find("not JSON") != std::string::npos);
  BOOST_TEST(breach("").find("not JSON") != std::string::npos);
  BOOST_TEST(breach("[1,2]").find("not an object") != std::string::npos);
  BOOST_TEST(breach(R"({"result":[[1,2],[3,4]]})").find("without an id") != std::string::npos);
  BOOST_TEST(breach(R"({"id":5,"result":[[1,2],[3,4]]})") == "id 5 instead of 4");
  BOOST_TEST(breach(R"({"id":"4","result":[[1,2],[3,4]]})") == "id \"4\" instead of 4");
  BOOST_TEST(breach(R"({"id":4})").find("neither result nor error") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2]],"error":"x"})").find("both") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"error":17})").find("not a string") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2]]})").find("1 rows, expected 2") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2],[3]]})").find("row 1 has 1 entries") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2],7]})").find("row 1 is 7") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2],[3,"x"]]})").find("row 1, column 1 is not a number") !=
             std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":{"a":1}})").find("not an array of rows") != std::string::npos);
  BOOST_TEST(breach(R"({"id":4,"result":[[1,2],[3,4]]})") == "(no breach)");
}

BOOST_AUTO_TEST_CASE(an_error_answer_is_a_refusal_carrying_the_subjects_words) {
  const json a = parse_answer(R"({"id":2,"error":"ValueError: dim must be even, got 3"})");
  try {
    answer_result(a, 2);
    BOOST_FAIL("expected a refusal");
  } catch (const Refusal& r) {
    BOOST_TEST(std::string(r.what()) == "ValueError: dim must be even, got 3");
  }
}

BOOST_AUTO_TEST_CASE(hello_is_validated_field_by_field) {
  const Hello ok = read_hello(json::parse(
      R"({"protocol":1,"name":"enc","ops":["encode","rotate"],"dtype":"bfloat16","layout":"halves","extra":1})"));
  BOOST_TEST(ok.protocol == 1);
  BOOST_TEST(ok.info.name == "enc");
  BOOST_TEST(ok.info.ops == (static_cast<unsigned>(Op::encode) | static_cast<unsigned>(Op::rotate)));
  BOOST_TEST(name(ok.info.dtype) == "bfloat16");
  BOOST_TEST(name(ok.info.layout) == "halves");
  BOOST_TEST(name(read_hello(json::parse(R"({"protocol":1,"name":"a","ops":["attention"],"dtype":"float16"})"))
                      .info.layout) == "unspecified");
  // The framing is the protocol: a subject that breaks it is a subject failure.
  for (const char* bad : {
           R"({"protocol":3,"name":"a","ops":["encode"],"dtype":"float32"})",
           R"({"protocol":"2","name":"a","ops":["encode"],"dtype":"float32"})",
           R"({"name":"a","ops":["encode"],"dtype":"float32"})",
           R"({"protocol":1,"ops":["encode"],"dtype":"float32"})",
           R"({"protocol":1,"name":"a","ops":[],"dtype":"float32"})",
           R"({"protocol":1,"name":"a","ops":"encode","dtype":"float32"})",
           R"({"protocol":1,"name":"a","ops":["encode"]})",
           R"([1])",
       }) {
    BOOST_TEST_CONTEXT(bad) { BOOST_CHECK_THROW(read_hello(json::parse(bad)), Breach); }
  }
  // What the fields declare is the user's declaration: a usage error naming the field.
  const std::pair<const char*, const char*> declarations[] = {
      {R"({"protocol":1,"name":"a","ops":["logits"],"dtype":"float32"})", "ops"},
      {R"({"protocol":1,"name":"a","ops":["encode"],"dtype":"double"})", "dtype"},
      {R"({"protocol":1,"name":"a","ops":["encode"],"dtype":"float32","layout":"unspecified"})", "layout"},
  };
  for (const auto& [bad, field] : declarations) {
    BOOST_TEST_CONTEXT(bad) {
      try {
        read_hello(json::parse(bad));
        BOOST_FAIL("expected a BadDeclaration");
      } catch (const BadDeclaration& d) {
        BOOST_TEST(d.field == field);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(received_bytes_are_shown_safely_and_truncated) {
  BOOST_TEST(show_bytes("ok\x1b[31m\xff\n") == "ok\\x1b[31m\\xff\\n");
  BOOST_TEST(show_bytes("π ≈ 3.14") == "π ≈ 3.14");  // valid UTF-8 stays readable
  const std::string shown = show_bytes(std::string(5000, 'a'), 100);
  BOOST_TEST(shown == std::string(100, 'a') + " ... (5000 bytes in all)");
  // Invalid UTF-8 never reaches a report (nlohmann refuses to write it).
  BOOST_CHECK_NO_THROW(json(show_bytes("\xc3\x28 \xe2\x82")).dump());
}

BOOST_AUTO_TEST_CASE(deeply_nested_answers_are_breaches_not_stack_overflows) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const json rows = parse_answer(R"({"id":1,"result":)" + deep + "}");
  BOOST_CHECK_THROW(result_matrix(answer_result(rows, 1), 1, 1), Breach);
  const json object = parse_answer(R"({"id":1,"result":{"x":)" + deep + "}}");
  try {
    result_matrix(answer_result(object, 1), 1, 1);
    BOOST_FAIL("expected a breach");
  } catch (const Breach& b) {
    BOOST_TEST(std::string(b.what()) == "a result that is not an array of rows: an object of 1 keys");
  }
}

BOOST_AUTO_TEST_CASE(a_long_name_is_cut_to_valid_utf8) {
  const std::string name = std::string(199, 'a') + "é and more";
  const Hello hello = read_hello(
      json{{"protocol", 1}, {"name", name}, {"ops", json::array({"encode"})}, {"dtype", "float64"}});
  BOOST_TEST(hello.info.name.size() <= 202u);
  BOOST_CHECK_NO_THROW(json(hello.info.name).dump());
}

namespace {
// The general path's matrix for a line, or nullopt where it finds a breach or refusal.
std::optional<Matrix> general_matrix(const std::string& line, RequestId id, Eigen::Index rows, Eigen::Index cols) {
  try {
    const json a = parse_answer(line);
    return result_matrix(answer_result(a, id), rows, cols);
  } catch (const Breach&) {
  } catch (const Refusal&) {
  }
  return std::nullopt;
}
bool same(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (!(std::isnan(x) && std::isnan(y)) && (x != y || std::signbit(x) != std::signbit(y))) return false;
  }
  return true;
}
}  // namespace

BOOST_AUTO_TEST_CASE(the_quick_matrix_path_reads_exactly_what_the_general_path_reads) {
  // Accepted by both, with bit-identical values.
  const std::pair<std::string, std::pair<int, int>> accepted[] = {
      {R"({"id":3,"result":[[0.1,1,-0.0,1e300],[5e-324,-2.5,NaN,-Infinity]]})", {2, 4}},
      {R"({"result": [[1.0, 2.0]], "id": 3})", {1, 2}},
      {" {\"id\" :3 , \"result\" : [ [ 1.5E-3 ,\t-0 ] ] } \r", {1, 2}},
      {R"({"id":3,"result":[]})", {0, 4}},
      {R"({"id":3,"result":[[],[]]})", {2, 0}},
      {R"({"id":3,"result":[[12345678901234567890123, 9007199254740993, Infinity]]})", {1, 3}},
  };
  for (const auto& [line, shape] : accepted) {
    BOOST_TEST_CONTEXT(line) {
      const auto quick = quick_matrix_answer(line, 3, shape.first, shape.second);
      const auto general = general_matrix(line, 3, shape.first, shape.second);
      BOOST_REQUIRE(quick.has_value());
      BOOST_REQUIRE(general.has_value());
      BOOST_TEST(same(*quick, *general));
    }
  }
  // Left to the general path, which explains what is wrong (or reads it).
  const std::string declined[] = {
      R"({"id":4,"result":[[1,2]]})",             // another id
      R"({"id":3,"result":[[1,2],[3]]})",         // ragged
      R"({"id":3,"result":[[1,2,3]]})",           // too wide
      R"({"id":3,"result":[[1,"2"]]})",           // a string
      R"({"id":3,"result":[[1,01]]})",            // not JSON
      R"({"id":3,"result":[[1,.5]]})",
      R"({"id":3,"result":[[1,2.]]})",
      R"({"id":3,"result":[[1,+2]]})",
      R"({"id":3,"result":[[1,inf]]})",
      R"({"id":3,"result":[[1,NaNa]]})",
      R"({"id":3,"result":[[1,1e999]]})",         // out of range: the general path decides
      R"({"id":3.0,"result":[[1,2]]})",
      R"({"id":3,"id":3,"result":[[1,2]]})",
      R"({"id":3,"result":[[1,2]],"note":"x"})",
      R"({"id":3,"error":"no"})",
      R"({"id":3,"result":[[1,2]]} x)",
      R"({"id":3,"result":[[1,2]]})" "\n{}",
      R"({"i\u0064":3,"result":[[1,2]]})",
  };
  for (const auto& line : declined) {
    BOOST_TEST_CONTEXT(line) { BOOST_TEST(!quick_matrix_answer(line, 3, 1, 2).has_value()); }
  }
  // What pecheck itself writes, read back through both paths.
  Matrix m = Matrix::Random(7, 5) * 1e3;
  m(0, 0) = std::numeric_limits<double>::quiet_NaN();
  m(1, 1) = -INFINITY;
  m(2, 2) = -0.0;
  m(3, 3) = 4.0;
  std::string line = rotate_request(3, {0, 1, 2, 3, 4, 5, 6}, m);
  line = R"({"id":3,"result":)" + line.substr(line.find("\"x\":") + 4);
  line.pop_back();  // the newline
  const auto quick = quick_matrix_answer(line, 3, 7, 5);
  BOOST_REQUIRE(quick.has_value());
  BOOST_TEST(same(*quick, m));
  BOOST_TEST(same(*quick, *general_matrix(line, 3, 7, 5)));
}

BOOST_AUTO_TEST_SUITE_END()  // test_process_protocol

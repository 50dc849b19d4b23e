#include "pecheck/subjects/serve.h"

#include <fmt/format.h>

#include <cmath>
#include <istream>
#include <ostream>

#include "pecheck/core/json.h"

namespace pecheck {

namespace {

constexpr int kProtocol = 1;

// Numbers as the protocol writes them: shortest round-trip text, non-finite
// values as the bare tokens NaN, Infinity, -Infinity.
void append_number(std::string& out, double x) {
  if (std::isnan(x)) out += "NaN";
  else if (std::isinf(x)) out += x > 0 ? "Infinity" : "-Infinity";
  else fmt::format_to(std::back_inserter(out), "{}", x);
}

std::string matrix_text(const Matrix& m) {
  std::string out = "[";
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    out += r == 0 ? "[" : ",[";
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c > 0) out += ',';
      append_number(out, m(r, c));
    }
    out += ']';
  }
  return out + "]";
}

json hello(const SubjectInfo& info, const json& request) {
  if (request.contains("protocol") && request["protocol"] != kProtocol) {
    throw Refusal(fmt::format("protocol {} is not supported; this subject speaks {}", request["protocol"].dump(), kProtocol));
  }
  json ops = json::array();
  for (Op op : {Op::encode, Op::attention, Op::rotate}) {
    if (info.supports(op)) ops.push_back(std::string(name(op)));
  }
  json result = {{"protocol", kProtocol}, {"name", info.name}, {"ops", ops}, {"dtype", std::string(name(info.dtype))}};
  if (info.layout != Layout::unspecified) result["layout"] = std::string(name(info.layout));
  return result;
}

AttentionMask mask_from_json(const json& mask) {
  if (mask.is_null() || mask == "none") return AttentionMask::none();
  if (mask == "causal") return AttentionMask::causal();
  if (mask.is_array()) return AttentionMask::boolean(bool_matrix_from_json(mask));
  throw Refusal("mask must be \"none\", \"causal\" or an array of booleans");
}

// The result text of one op, or a Refusal for a request this subject cannot answer.
std::string result_text(Subject& subject, const std::string& op, const json& r) {
  if (op == "hello") return hello(subject.info(), r).dump();
  if (op == "encode") {
    return matrix_text(subject.encode(r.at("dim").get<int>(), r.at("positions").get<Positions>(),
                                      r.at("seq_len").get<Position>()));
  }
  if (op == "rotate") {
    std::optional<Position> seq_len;
    if (r.contains("seq_len")) seq_len = r["seq_len"].get<Position>();
    return matrix_text(subject.rotate(r.at("positions").get<Positions>(), matrix_from_json(r.at("x")), seq_len));
  }
  if (op == "attention") {
    return matrix_text(subject.attention(matrix_from_json(r.at("q")), matrix_from_json(r.at("k")),
                                         matrix_from_json(r.at("v")),
                                         mask_from_json(r.contains("mask") ? r["mask"] : json()), 1));
  }
  throw Refusal(fmt::format("unknown op '{}'", op));
}

}  // namespace

std::string quote_non_finite_tokens(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) out += line[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (line.substr(i, token.size()) == token) {
        fmt::format_to(std::back_inserter(out), "\"{}\"", token);
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string answer(Subject& subject, std::string_view request_line, bool& shutdown) {
  json request;
  try {
    request = json::parse(quote_non_finite_tokens(request_line));
  } catch (const json::parse_error& e) {
    return json{{"id", nullptr}, {"error", fmt::format("request is not JSON: {}", e.what())}}.dump();
  }
  const json id = request.is_object() && request.contains("id") ? request["id"] : json();
  const std::string op = request.is_object() && request.contains("op") && request["op"].is_string()
                             ? request["op"].get<std::string>() : "";
  if (op == "shutdown") {
    shutdown = true;
    return json{{"id", id}, {"result", nullptr}}.dump();
  }
  try {
    return fmt::format("{{\"id\":{},\"result\":{}}}", id.dump(), result_text(subject, op, request));
  } catch (const Refusal& refusal) {
    return json{{"id", id}, {"error", refusal.what()}}.dump();
  } catch (const json::exception& e) {
    // A malformed request is refused, not a crash: the harness never sends one.
    return json{{"id", id}, {"error", fmt::format("malformed {} request: {}", op, e.what())}}.dump();
  } catch (const std::invalid_argument& e) {
    return json{{"id", id}, {"error", fmt::format("malformed {} request: {}", op, e.what())}}.dump();
  }
}

int serve(Subject& subject, std::istream& in, std::ostream& out, std::ostream& log) {
  std::string line;
  bool shutdown = false;
  while (!shutdown && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out << answer(subject, line, shutdown) << '\n' << std::flush;
    } catch (const SubjectFailure& f) {
      log << "pecheck serve: subject failure: " << f.what() << "\n";
      if (!f.request.empty()) log << "  request: " << f.request << "\n";
      log << std::flush;
      return 3;
    } catch (const std::exception& e) {
      log << "pecheck serve: subject failure: the subject threw: " << e.what() << "\n" << std::flush;
      return 3;
    }
  }
  return 0;
}

}  // namespace pecheck

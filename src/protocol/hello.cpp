#include "protocol/hello.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/escape.h"
#include "pecheck/core/op_table.h"
#include "protocol/declarations.h"
#include "protocol/responses.h"
#include "protocol/schema.h"

namespace pecheck::process {

namespace {

// The protocol's ops (the op table's rows on the wire) and reset, which comes with decode.
const Keys& protocol_ops() {
  static const Keys ops = [] {
    Keys out;
    for (const OpRow& row : op_table()) {
      if (row.on_wire) out.push_back(row.name);
    }
    out.push_back("reset");
    return out;
  }();
  return ops;
}

unsigned read_ops(const json& ops) {
  unsigned mask = 0;
  bool decode = false, reset = false;
  for (const json& op : ops) {
    const std::string text = op.is_string() ? op.get<std::string>() : "";
    if (!among(text, protocol_ops())) {
      bad("ops", fmt::format("ops lists {}, not an op of the protocol ({})", brief(op), list(protocol_ops())));
    }
    decode = decode || text == "decode";
    reset = reset || text == "reset";
    if (text != "reset") mask |= static_cast<unsigned>(*parse_op(text));
  }
  if (decode != reset) {
    bad("ops", fmt::format("ops lists {} without {}: incremental decoding needs both", decode ? "decode" : "reset",
                           decode ? "reset" : "decode"));
  }
  return mask;
}

}  // namespace

Hello read_hello(const json& result) {
  if (!result.is_object()) throw Breach(fmt::format("a hello result that is not an object: {}", brief(result)));
  Hello hello;
  const auto protocol = result.find("protocol");
  if (protocol == result.end() || !protocol->is_number_integer() ||
      (protocol->get<std::int64_t>() != 1 && protocol->get<std::int64_t>() != 2)) {
    throw Breach(fmt::format("protocol {} (pecheck speaks protocols 1 and 2)",
                             protocol == result.end() ? "missing" : brief(*protocol)));
  }
  hello.protocol = static_cast<int>(protocol->get<std::int64_t>());
  SubjectInfo& info = hello.info;

  const auto name = result.find("name");
  if (name == result.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    throw Breach("a hello without a name");
  }
  info.name = valid_utf8(name->get_ref<const std::string&>().substr(0, 200));  // cut may split a character

  const auto ops = result.find("ops");
  if (ops == result.end() || !ops->is_array() || ops->empty()) {
    throw Breach(fmt::format("a hello without ops (a non-empty list of {})", list(protocol_ops())));
  }
  const auto dtype = result.find("dtype");
  if (dtype == result.end()) throw Breach(fmt::format("a hello without a dtype ({})", list(dtype_names())));

  if (hello.protocol >= 2) {
    static const Keys fields = schema::fields("hello");
    for (const auto& [key, value] : result.items()) {
      if (!among(key, fields)) {
        bad(key, fmt::format("the subject declares {}, a field pecheck does not know (a hello has: {})",
                             valid_utf8(key.substr(0, 200)), list(fields)));
      }
    }
  }
  info.ops = read_ops(*ops);
  if (!dtype->is_string() || !among(dtype->get_ref<const std::string&>(), dtype_names())) {
    bad("dtype", fmt::format("dtype must be one of {}, got {}", list(dtype_names()), brief(*dtype)));
  }
  info.dtype = *parse_dtype(dtype->get_ref<const std::string&>());

  if (const auto layout = result.find("layout"); layout != result.end()) {
    if (!layout->is_string() || !among(layout->get_ref<const std::string&>(), layout_names())) {
      bad("layout", fmt::format("layout must be one of {}, got {}", list(layout_names()), brief(*layout)));
    }
    info.layout = *parse_layout(layout->get_ref<const std::string&>());
  }
  if (const auto compute = result.find("compute"); compute != result.end()) read_compute(*compute, info);
  if (const auto params = result.find("params"); params != result.end()) read_params(*params, info);
  if (const auto batch = result.find("batch"); batch != result.end()) {
    if (!batch->is_boolean()) bad("batch", fmt::format("batch must be true or false, got {}", brief(*batch)));
    info.batch = batch->get<bool>();
  }
  if (const auto arrays = result.find("arrays"); arrays != result.end()) {
    if (!arrays->is_array()) bad("arrays", fmt::format("arrays must be a list of array encodings, got {}", brief(*arrays)));
    for (const json& kind : *arrays) {
      if (kind != "b64le") {
        bad("arrays", fmt::format("arrays lists {}, an array encoding pecheck does not know (it knows b64le)", brief(kind)));
      }
      info.b64le = true;
    }
  }
  if (const auto fork = result.find("fork"); fork != result.end() && hello.protocol >= 2) {
    if (!fork->is_boolean()) bad("fork", fmt::format("fork must be true or false, got {}", brief(*fork)));
    hello.fork = fork->get<bool>();
    if (hello.fork) info.declared.push_back("fork");
  }
  std::sort(info.declared.begin(), info.declared.end());
  info.declared.erase(std::unique(info.declared.begin(), info.declared.end()), info.declared.end());
  return hello;
}

json hello_result(const SubjectInfo& info, int protocol, bool batch, bool b64le, bool fork) {
  json ops = json::array();
  for (const OpRow& row : op_table()) {
    if (row.on_wire && info.supports(row.op)) ops.push_back(std::string(row.name));
  }
  if (info.supports(Op::decode)) ops.push_back("reset");
  json result = {{"protocol", protocol}, {"name", info.name}, {"ops", ops}, {"dtype", std::string(name(info.dtype))}};
  if (info.layout != Layout::unspecified) result["layout"] = std::string(name(info.layout));
  if (protocol < 2) return result;

  if (json compute = compute_json(info); !compute.empty()) result["compute"] = std::move(compute);
  if (json params = params_json(info); !params.empty()) result["params"] = std::move(params);
  if (batch) result["batch"] = true;
  if (b64le) result["arrays"] = json::array({"b64le"});
  if (fork) result["fork"] = true;
  return result;
}

}  // namespace pecheck::process

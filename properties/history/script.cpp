#include "history/script.h"

#include <fmt/format.h>

#include "pecheck/property/property.h"

namespace pecheck::history {

namespace {
constexpr std::size_t kLongestScript = 1000;  // a recorded script beyond this is not one pecheck wrote
}  // namespace

// Each request's form is its call's codec's (calls.h call_to_json, call_from_json).
json request_to_json(const Call& call) { return call_to_json(call); }

Call request_from_json(const json& request) {
  try {
    return call_from_json(request);
  } catch (const json::exception& e) {
    throw InvalidInput(e.what());
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(e.what());
  }
}

void to_json(json& j, const Script& script) {
  j = json::array();
  for (const auto& call : script.requests) j.push_back(request_to_json(call));
}

void from_json(const json& j, Script& script) {
  if (!j.is_array()) throw InvalidInput("a history script is a JSON list of requests");
  if (j.empty() || j.size() > kLongestScript) {
    throw InvalidInput(fmt::format("a history script holds 1..{} requests", kLongestScript));
  }
  script.requests.clear();
  for (const auto& r : j) {
    try {
      script.requests.push_back(request_from_json(r));
    } catch (const json::exception& e) {
      throw InvalidInput(e.what());
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(e.what());
    }
  }
}

std::string describe(const Call& call) { return describe_call(call); }

}  // namespace pecheck::history

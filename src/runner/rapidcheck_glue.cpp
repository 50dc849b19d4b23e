#include "runner/rapidcheck_glue.h"

#include <sstream>
#include <unordered_map>

#include <rapidcheck/Check.h>

// Declared in RapidCheck's sources (src/detail/ReproduceListener.cpp /
// Configuration.cpp), exported by its library but not by a public header.
namespace rc::detail {
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& map);
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail

namespace pecheck {

bool reproduces(const std::string& reproduce, const std::string& id) {
  if (reproduce.empty()) return false;
  try {
    return rc::detail::stringToReproduceMap(reproduce).count(id) > 0;
  } catch (const std::exception&) {
    return false;
  }
}

CheckOutcome check_with_rapidcheck(const rc::Gen<rc::detail::CaseDescription>& cases,
                                   const rc::detail::TestMetadata& metadata,
                                   const rc::detail::TestParams& params, CountingListener& listener,
                                   const std::string& reproduce) {
  std::unordered_map<std::string, rc::detail::Reproduce> reproduce_map;
  if (!reproduce.empty()) reproduce_map = rc::detail::stringToReproduceMap(reproduce);
  const auto result = rc::detail::checkProperty(cases, metadata, params, listener, reproduce_map);

  CheckOutcome out;
  if (result.is<rc::detail::FailureResult>()) {
    const auto& failure = result.get<rc::detail::FailureResult>();
    out.failure = true;
    out.message = failure.description;
    out.reproduce = rc::detail::reproduceMapToString({{metadata.id, failure.reproduce}});
  } else if (result.is<rc::detail::GaveUpResult>()) {
    out.gave_up = true;
    out.message = "gave up: " + result.get<rc::detail::GaveUpResult>().description;
  } else if (result.is<rc::detail::Error>()) {
    out.error = true;
    out.message = "RapidCheck error: " + result.get<rc::detail::Error>().description;
  }
  return out;
}

}  // namespace pecheck

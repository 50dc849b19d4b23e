#include "runner/rapidcheck_glue.h"

#include <rapidcheck/Check.h>

#include "runner/rapidcheck_serialization.h"

namespace pecheck {

using rc::detail::CaseResult;

SearchCase search_case(CaseVerdict verdict, std::string text, std::string inputs_json) {
  SearchCase d;
  const CaseResult::Type type = verdict == CaseVerdict::pass      ? CaseResult::Type::Success
                                : verdict == CaseVerdict::discard ? CaseResult::Type::Discard
                                                                  : CaseResult::Type::Failure;
  d.result = CaseResult(type, std::move(text));
  // RapidCheck evaluates the shrunk case once more and calls example() on it;
  // after a subject failure that re-evaluation is a vacuous success, so an
  // empty std::function would throw bad_function_call.
  if (inputs_json.empty()) {
    d.example = [] { return rc::detail::Example{}; };
  } else {
    d.example = [in = std::move(inputs_json)] { return rc::detail::Example{{"inputs", in}}; };
  }
  return d;
}

bool is_discard(const SearchCase& c) { return c.result.type == CaseResult::Type::Discard; }
bool is_pass(const SearchCase& c) { return c.result.type == CaseResult::Type::Success; }

int default_max_discard_ratio() { return rc::detail::TestParams().maxDiscardRatio; }

void CountingListener::onTestCaseFinished(const rc::detail::CaseDescription& d) {
  if (!is_discard(d)) ++cases;
  counted();
}

void CountingListener::onShrinkTried(const rc::detail::CaseDescription&, bool accepted) {
  ++shrinks_tried;
  shrinks_accepted += accepted ? 1 : 0;
  counted();
}

bool reproduces(const std::string& reproduce, const std::string& id) {
  if (reproduce.empty()) return false;
  try {
    return rc::detail::stringToReproduceMap(reproduce).count(id) > 0;
  } catch (const std::exception&) {
    return false;
  }
}

CheckOutcome check_with_rapidcheck(const rc::Gen<SearchCase>& cases, const SearchParams& search,
                                   CountingListener& listener, const std::string& reproduce) {
  rc::detail::TestParams params;
  params.seed = search.seed;
  params.maxSuccess = search.cases;
  params.maxSize = search.max_size;
  params.disableShrinking = !search.shrink;
  rc::detail::TestMetadata metadata;
  metadata.id = search.id;
  metadata.description = search.description;
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

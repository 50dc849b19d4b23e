#pragma once
// The thin layer over RapidCheck's detail API: run a property with given
// parameters, count cases and shrinks, and return the reproduce string.
#include <rapidcheck.h>

#include <string>

namespace pecheck {

struct CountingListener : rc::detail::TestListener {
  int cases = 0;
  int shrinks_tried = 0;
  int shrinks_accepted = 0;
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    if (d.result.type != rc::detail::CaseResult::Type::Discard) ++cases;
  }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++shrinks_tried;
    shrinks_accepted += accepted ? 1 : 0;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

struct CheckOutcome {
  bool failure = false;
  bool gave_up = false;
  bool error = false;
  std::string message;
  std::string reproduce;
};

// Whether a RapidCheck reproduce string holds a case of the test `id`
// (false for an empty or unreadable string).
bool reproduces(const std::string& reproduce, const std::string& id);

CheckOutcome check_with_rapidcheck(const rc::Gen<rc::detail::CaseDescription>& cases,
                                   const rc::detail::TestMetadata& metadata,
                                   const rc::detail::TestParams& params, CountingListener& listener,
                                   const std::string& reproduce);

}  // namespace pecheck

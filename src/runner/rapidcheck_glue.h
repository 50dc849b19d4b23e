#pragma once
// The thin layer over RapidCheck's detail API, and the only place pecheck
// names it: run a search with given parameters, count cases and shrinks,
// and return the reproduce string. A case's verdict is made here too, so the
// runner speaks of passed, discarded and failed cases, never of RapidCheck's
// internal types.
#include <rapidcheck.h>

#include <cstdint>
#include <string>

namespace pecheck {

// One case as RapidCheck's search sees it: its verdict and, for a failure,
// the inputs it shows.
using SearchCase = rc::detail::CaseDescription;

enum class CaseVerdict { pass, discard, fail };

// A case with `verdict`; `text` says why (a discard's reason, a failure's
// summary) and `inputs_json` is what a failure shows as its inputs.
SearchCase search_case(CaseVerdict verdict, std::string text = {}, std::string inputs_json = {});
bool is_discard(const SearchCase& c);
bool is_pass(const SearchCase& c);

// RapidCheck's own limit: a search gives up past cases × this many discards.
int default_max_discard_ratio();

// A search: what RapidCheck's TestParams and TestMetadata hold, as far as pecheck sets them.
struct SearchParams {
  std::uint64_t seed = 0;
  int cases = 100;
  int max_size = 100;
  bool shrink = true;
  std::string id;
  std::string description;
};

// Counts the cases judged (discards aside) and the shrinks tried and
// accepted; `counted()` runs after each, for listeners that report progress.
class CountingListener : public rc::detail::TestListener {
 public:
  int cases = 0;
  int shrinks_tried = 0;
  int shrinks_accepted = 0;
  void onTestCaseFinished(const rc::detail::CaseDescription& d) final;
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) final;
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) final {}

 protected:
  virtual void counted() {}
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

CheckOutcome check_with_rapidcheck(const rc::Gen<SearchCase>& cases, const SearchParams& search,
                                   CountingListener& listener, const std::string& reproduce);

}  // namespace pecheck

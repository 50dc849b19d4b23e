#include "report/report_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"

namespace pecheck {

namespace {

// A value for a message: short, one line.
std::string shown(const json& value) {
  if (value.is_object()) return fmt::format("an object of {} keys", value.size());
  if (value.is_array()) return fmt::format("a list of {} entries", value.size());
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// The first field where `written` is not `expected`, in a sentence (empty
// when they agree), leaving out the keys in `skip` (checked elsewhere).
// Keys pecheck writes first, then keys it never writes.
std::string first_difference(const json& written, const json& expected, std::string_view what,
                             std::initializer_list<std::string_view> skip = {}) {
  auto skipped = [&](const std::string& key) { return std::find(skip.begin(), skip.end(), key) != skip.end(); };
  for (const auto& [key, value] : expected.items()) {
    if (skipped(key)) continue;
    const auto at = written.find(key);
    if (at == written.end()) return fmt::format("it lacks the field '{}' that pecheck writes for {}", key, what);
    if (*at != value) {
      return fmt::format("its '{}' is {}, where pecheck writes {} for {}", key, shown(*at), shown(value), what);
    }
  }
  for (const auto& [key, value] : written.items()) {
    if (!skipped(key) && !expected.contains(key)) {
      return fmt::format("it has a field '{}' that pecheck does not write for {}", key, what);
    }
  }
  return {};
}

std::string outcome_words(const PropertyResult& r) {
  return fmt::format("outcome '{}' against the expectation '{}'", name(r.outcome), name(r.expectation));
}

}  // namespace

void check_result_as_written(const PropertyResult& r, const json& written) {
  const std::string cell = fmt::format("result {} × {}", r.property, r.subject);
  // The contradictions a forged verdict shows first, in their own words.
  if (const auto status = written.find("status"); status != written.end() && *status != name(r.status())) {
    throw ReportReadError(fmt::format("{}: its status {} contradicts its {}, which is '{}'", cell, shown(*status),
                                      outcome_words(r), name(r.status())));
  }
  if (written.contains("counterexample") && r.counterexample() == nullptr) {
    throw ReportReadError(fmt::format("{}: it carries a counterexample, but its outcome is '{}': a result with a "
                                      "counterexample is 'violated'",
                                      cell, name(r.outcome)));
  }
  const json expected = to_json(r);
  if (const std::string difference = first_difference(written, expected, "this " + outcome_words(r), {"rerun"});
      !difference.empty()) {
    throw ReportReadError(fmt::format("{}: {}", cell, difference));
  }
}

void check_header_as_written(const RunReport& r, const json& written) {
  // `r` without results: the tree of the report's own fields only ("results" and "summary" are checked below).
  const json expected = to_json(r);
  if (const std::string difference = first_difference(written, expected, "this run", {"results", "summary"});
      !difference.empty()) {
    throw ReportReadError(fmt::format("the report's own fields: {}", difference));
  }
}

void check_report_as_written(const RunReport& r, const json& written, const std::vector<std::string>& reruns) {
  std::map<std::string_view, const PropertyInfo*> properties;
  for (const auto& p : r.properties) properties.emplace(p.id, &p);
  std::map<std::string_view, const SubjectSummary*> subjects;
  for (const auto& s : r.subjects) subjects.emplace(s.spec, &s);
  json summary = {{"total", 0}, {"passed", 0}, {"failed", 0}, {"error", 0}, {"skipped", 0}};
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const PropertyResult& result = r.results[i];
    const std::string cell = fmt::format("results[{}]: result {} × {}", i, result.property, result.subject);
    summary["total"] = summary["total"].get<int>() + 1;
    const std::string status(name(result.status()));
    summary[status] = summary[status].get<int>() + 1;
    if (i < reruns.size() && reruns[i] != rerun_command(r, result)) {
      throw ReportReadError(fmt::format("{}: its rerun command is not the run's ({})", cell,
                                        shown(json(rerun_command(r, result)))));
    }
    // The expectation is the run's for this cell, not the result's own say.
    const auto p = properties.find(result.property);
    const auto s = subjects.find(result.subject);
    const PropertyInfo* property = p == properties.end() ? nullptr : p->second;
    const SubjectSummary* subject = s == subjects.end() ? nullptr : s->second;
    if (property == nullptr || subject == nullptr) {
      throw ReportReadError(fmt::format("{}: its {} is not among the report's {}", cell,
                                        property == nullptr ? "property" : "subject",
                                        property == nullptr ? "properties" : "subjects"));
    }
    const auto configured = r.expectations.find(result.property);
    // As PropertyInfo::expectation(scheme, subject): a scheme's own row, else
    // what the subject's declared conventions make false, else the default.
    const bool declared_violated =
        !property->expect_for.contains(subject->scheme) &&
        std::ranges::find(subject->declared_violations, result.property) != subject->declared_violations.end();
    const Expect expectation = configured != r.expectations.end() ? configured->second
                               : declared_violated                ? Expect::violated
                                                                  : property->expectation(subject->scheme);
    if (result.expectation != expectation) {
      throw ReportReadError(fmt::format(
          "{}: its expectation '{}' is not the run's for this cell: '{}' ({})", cell, name(result.expectation),
          name(expectation),
          configured != r.expectations.end()
              ? std::string("the run's configured expectations")
              : fmt::format("property {} for subjects judged as '{}'{}", result.property, subject->scheme,
                            declared_violated ? " whose declared conventions make it false" : "")));
    }
  }
  if (const auto at = written.find("summary"); at == written.end() || *at != summary) {
    const std::string recorded = at == written.end()
                                     ? std::string("(missing)")
                                     : at->dump(-1, ' ', true, json::error_handler_t::replace).substr(0, 200);
    throw ReportReadError(fmt::format("its summary {} is not what its results count: {}", recorded, summary.dump()));
  }
  if (r.exit_code != exit_code_for(r)) {
    throw ReportReadError(
        fmt::format("its exit code {} is not what its results give: {}", r.exit_code, exit_code_for(r)));
  }
}

}  // namespace pecheck

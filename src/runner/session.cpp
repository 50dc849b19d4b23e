#include "pecheck/runner/session.h"

#include <fnmatch.h>

namespace pecheck {

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  for (const auto& g : globs) {
    if (fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
  }
  return false;
}

std::vector<PropertyResult> run_matrix(const std::vector<const PropertyDef*>& properties,
                                       const std::vector<Subject*>& subjects, const RunConfig& config,
                                       RunObserver& observer) {
  std::vector<PropertyResult> results;
  for (Subject* subject : subjects) {
    const SubjectInfo& info = subject->info();
    std::string broken_by;  // the property during which the subject failed
    for (const PropertyDef* p : properties) {
      if (!p->info.applies_to(info)) continue;
      if (!broken_by.empty()) {
        PropertyResult skipped;
        skipped.property = p->info.id;
        skipped.subject = info.spec;
        skipped.expectation = expectation_for(p->info, info, config);
        skipped.message = "not run: the subject failed during " + broken_by;
        results.push_back(skipped);
        observer.on_result(results.back());
        continue;
      }
      observer.on_start(p->info, info);
      results.push_back(p->run(*subject, config));
      if (results.back().subject_failure) broken_by = p->info.id;
      observer.on_result(results.back());
    }
  }
  return results;
}

SubjectSummary summarize(const SubjectInfo& info) {
  SubjectSummary s{info.spec, info.name, std::string(name(info.dtype)), std::string(name(info.layout)),
                   info.scheme, {}};
  for (Op op : kAllOps) {
    if (info.supports(op)) s.ops.emplace_back(name(op));
  }
  return s;
}

}  // namespace pecheck

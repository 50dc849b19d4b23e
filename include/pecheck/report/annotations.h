#pragma once
// GitHub Actions workflow commands for the first failures of a run:
//   ::error file=…,title=…::message
// so a failing check shows its counterexample on the pull request. Escaping
// follows the runner's rules: in the message %, \r and \n; in properties also
// : and ,. Other control characters are shown as \xNN (the line also lands in
// a terminal), and invalid UTF-8 is replaced.
#include <string>
#include <string_view>

#include "pecheck/result/result.h"

namespace pecheck {

std::string escape_annotation_data(std::string_view text);
std::string escape_annotation_property(std::string_view text);

// One ::error line per failed or errored result, at most `limit`, each
// pointing at the result's counterexample file under `report.report_dir`
// when it has one. Ends with a ::notice line when failures were left out.
std::string github_annotations(const RunReport& report, int limit);

}  // namespace pecheck

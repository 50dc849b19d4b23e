#pragma once
// junit.xml: one testsuite per subject, one testcase per property × subject,
// the counterexample inside <failure>, run metadata in suite <properties>.
// Valid for GitLab, Jenkins and the common GitHub test-report actions.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

std::string write_junit(const RunReport& report);

}  // namespace pecheck

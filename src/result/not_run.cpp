#include "pecheck/result/not_run.h"

namespace pecheck {

PropertyResult not_run_after_failure(const std::string& property, const std::string& subject, Expect expectation,
                                     const std::string& broken_by) {
  PropertyResult skipped;
  skipped.property = property;
  skipped.subject = subject;
  skipped.expectation = expectation;
  skipped.outcome = NotRun{"not run: the subject failed during " + broken_by};
  return skipped;
}

}  // namespace pecheck

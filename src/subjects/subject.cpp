#include "pecheck/subjects/subject.h"

namespace pecheck {

std::vector<Answer> Subject::perform_batch(std::span<const Call> calls) {
  std::vector<Answer> answers;
  answers.reserve(calls.size());
  for (const Call& call : calls) answers.push_back(perform(call));
  return answers;
}

}  // namespace pecheck

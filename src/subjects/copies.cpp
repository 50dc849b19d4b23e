#include "pecheck/subjects/copies.h"

namespace pecheck {

bool makes_fresh_copies(Subject& subject) { return dynamic_cast<CopyingSubject*>(&subject) != nullptr; }

SubjectPtr fresh_copy_of(Subject& subject) {
  auto* copying = dynamic_cast<CopyingSubject*>(&subject);
  return copying != nullptr ? copying->fresh_copy() : nullptr;
}

}  // namespace pecheck

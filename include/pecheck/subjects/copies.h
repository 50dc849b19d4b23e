#pragma once
// Fresh copies of a subject made without starting it again. A process
// subject that declares "fork" in its hello (SUBJECT-PROTOCOL.md, pecheck's
// extensions: fresh copies by fork) is kept as a zygote that has answered
// only hello; each copy is a child it forks on request, with the imports and
// the model construction already done, and talks to pecheck over a socket of
// its own. A copy is in the state of a subject that has just answered hello
// and nothing else: the state history_independence compares with, and the
// state each parallel job's instance starts from.
#include "pecheck/subjects/subject.h"

namespace pecheck {

// A subject that can make fresh copies of itself (a BatchingSubject-style
// capability, found by dynamic_cast: most subjects are not one).
class CopyingSubject {
 public:
  virtual ~CopyingSubject() = default;
  // A new instance with no history, sharing nothing with this one (its own
  // process). It may be made lazily: a copy that cannot be made is a
  // SubjectFailure at its first request.
  virtual SubjectPtr fresh_copy() = 0;
};

// Whether `subject` makes fresh copies (is a CopyingSubject).
bool makes_fresh_copies(Subject& subject);

// A fresh copy of `subject`, or null where it makes none.
SubjectPtr fresh_copy_of(Subject& subject);

}  // namespace pecheck

#pragma once
// The subject pecheck talks to for a process subject kept as a zygote
// (zygote.h): every request goes to a copy of its own, taken from the zygote
// at its first request and given back when it is destroyed; fresh_copy()
// is another such subject, with a copy of its own.
#include <memory>

#include "pecheck/subjects/subject.h"
#include "subjects/process/zygote.h"

namespace pecheck::process {

SubjectPtr make_forking_subject(std::shared_ptr<Zygote> zygote);

}  // namespace pecheck::process

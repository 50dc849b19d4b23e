#pragma once
// A loaded pecheck plugin (adapters/c/pecheck_plugin.h): the dlopen handle, the
// plugin's validated info and the entry points its declared ops need. Every
// way a library can fail to be a plugin ends in a SubjectFailure whose message
// names the file and what is wrong with it.
#include <memory>
#include <string>

#include "pecheck/subjects/subject.h"

namespace pecheck::plugin {

using EncodeFn = int (*)(int, const std::int64_t*, size_t, std::int64_t, double*, char*, size_t);
using RotateFn = int (*)(const std::int64_t*, size_t, int, const double*, double*, char*, size_t);
using AttentionFn = int (*)(const double*, const double*, const double*, size_t, size_t, size_t, size_t,
                            int, const bool*, double*, char*, size_t);
using RotateBackwardFn = int (*)(const std::int64_t*, size_t, int, const double*, const double*, double*, char*,
                                 size_t);
using AttentionBackwardFn = int (*)(const double*, const double*, const double*, size_t, size_t, size_t, size_t, int,
                                    const bool*, const double*, double*, double*, double*, char*, size_t);
using RotateShiftFn = int (*)(const std::int64_t*, size_t, int, std::int64_t, const double*, double*, char*, size_t);
using RotateAxesFn = int (*)(const std::int64_t*, size_t, size_t, int, const double*, double*, char*, size_t);

class Library {
 public:
  // Loads `path` (a relative path is taken from the current directory, never
  // searched for) and checks its info and symbols. Throws SubjectFailure.
  explicit Library(const std::string& path);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const std::string& path() const { return path_; }
  // name, dtype, layout and ops as the plugin declares them (spec and scheme unset).
  const SubjectInfo& declared() const { return declared_; }
  EncodeFn encode = nullptr;
  RotateFn rotate = nullptr;
  AttentionFn attention = nullptr;
  // With PECHECK_OP_BACKWARD: the backward entry points it exports (declared in params.backward.of).
  RotateBackwardFn rotate_backward = nullptr;
  AttentionBackwardFn attention_backward = nullptr;
  // With PECHECK_OP_ROTATE_SHIFT (which declares context_shift) and PECHECK_OP_ROTATE_AXES.
  RotateShiftFn rotate_shift = nullptr;
  RotateAxesFn rotate_axes = nullptr;

 private:
  void bind_ops(unsigned ops);
  std::string path_;
  void* handle_ = nullptr;
  SubjectInfo declared_;
};

}  // namespace pecheck::plugin

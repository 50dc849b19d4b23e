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

// Where the annotations may point: files of the repository only (GitHub
// shows an annotation on a file of the commit; a generated report is not
// one).
struct AnnotationFiles {
  std::string workspace;  // the checkout ($GITHUB_WORKSPACE); absolute paths under it are made relative
  std::string cwd;        // where relative paths (in a spec, the config) start; empty: the workspace
  std::string config;     // the pecheck.toml the run read, as given; empty: none
};

// The repository file an annotation of `result` points at: the subject's
// script (a word of a cmd: spec naming a source file: .py, .js, .sh, .c, …),
// else the config file; empty (no file=) when neither lies in the checkout.
std::string annotation_file(const PropertyResult& result, const AnnotationFiles& files);

// One ::error line per failed or errored result, at most `limit`, each
// pointing at annotation_file() when there is one. Ends with a ::notice line
// when failures were left out.
std::string github_annotations(const RunReport& report, int limit, const AnnotationFiles& files = {});

}  // namespace pecheck

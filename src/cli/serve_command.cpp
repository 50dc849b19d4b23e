// `pecheck serve SPEC`: one subject served over the subject protocol on
// stdin/stdout (subjects/serve.h), which is how the CLI runs a C plugin in a
// child process, a zygote that forks fresh copies on request; and
// self_executable, the path the CLI starts itself by.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "cli/commands.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/serve.h"

namespace pecheck::cli {

int serve(const std::string& spec, const std::string& declarations) {
  std::ios::sync_with_stdio(false);
  SubjectPtr subject;
  try {
    subject = make_subject(spec);
    if (!declarations.empty()) {
      const json declared = json::parse(declarations, nullptr, false);
      if (declared.is_discarded()) throw BadSubjectSpec("--declarations is not JSON");
      subject = with_declarations(std::move(subject), declared);
    }
  } catch (const BadSubjectSpec& e) {
    std::cerr << "pecheck serve: " << e.what() << "\n";
    return kExitUsage;
  } catch (const SubjectFailure& f) {
    std::cerr << "pecheck serve: " << f.what() << "\n";
    return kExitSubject;
  }
  // A zygote for fresh copies where this process can fork safely (it runs one
  // thread once the subject is made: a plugin that starts threads as it
  // loads cannot), unless PECHECK_SUBJECT_FORK=0.
  ServeOptions options;
  const char* fork = std::getenv("PECHECK_SUBJECT_FORK");
  options.fork = (fork == nullptr || std::string_view(fork) != "0") && fork_safe();
  return pecheck::serve(*subject, std::cin, std::cout, std::cerr, options);
}

std::string self_executable(const char* argv0) {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) return path.string();
  return std::filesystem::absolute(argv0, ec).string();
}

}  // namespace pecheck::cli

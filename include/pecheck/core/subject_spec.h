#pragma once
// A subject spec, KIND:PAYLOAD, as the user writes it (--subject, pecheck.toml,
// a recorded counterexample) and as reports print it. The one place that
// knows the kinds' spellings: text is parsed with parse_subject_spec (or
// try_parse_subject_spec) where it enters, carried as a SubjectSpec (kind and
// payload), and written back with format_spec where text leaves (reports,
// replay commands, seeds and shards, the console).
//   builtin:NAME          a reference implementation (pecheck list)
//   mutant:NAME           a planted bug
//   cmd:COMMAND           a process started with the shell
//   plugin:PATH           a C plugin (in a child process under the CLI)
//   plugin-inproc:PATH    a C plugin loaded into this process (pecheck serve's)
//   fd:READ,WRITE         a process already started, on two descriptors
//   cpp:NAME              a C++ object handed to pecheck in-process (pecheck/cpp/
//                         implementation.h); it names nothing the factory can start
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pecheck {

// A spec that names nothing (a usage or configuration error: exit 2).
struct BadSubjectSpec : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class SubjectKind { builtin, mutant, cmd, plugin, plugin_inproc, fd, cpp };

struct SubjectSpec {
  SubjectKind kind = SubjectKind::builtin;
  std::string payload;  // what follows the first ':', as written (may be empty)
  bool operator==(const SubjectSpec&) const = default;
  auto operator<=>(const SubjectSpec&) const = default;
};

// A reference implementation, a planted bug, a C++ object: by name.
SubjectSpec builtin_spec(std::string_view name);
SubjectSpec mutant_spec(std::string_view name);
SubjectSpec cpp_spec(std::string_view name);

// The kind as spelt before the ':' ("plugin-inproc").
std::string_view kind_name(SubjectKind kind);

// The syntax of `kinds` for help texts and messages, each with its payload's
// placeholder, joined by ", " and a final " or ": {builtin, mutant, cmd} gives
// "builtin:NAME, mutant:NAME or cmd:COMMAND".
std::string subject_spec_syntax(std::initializer_list<SubjectKind> kinds);

// The spec's kind and payload; nullopt where it has no ':' or an unknown kind.
std::optional<SubjectSpec> try_parse_subject_spec(std::string_view spec);

// The same, throwing BadSubjectSpec ("subject '…' has no kind; write …",
// "unknown subject kind '…' in '…'") where try_parse_subject_spec finds none.
SubjectSpec parse_subject_spec(std::string_view spec);

// KIND:PAYLOAD, the text parse_subject_spec reads back.
std::string spec_of(SubjectKind kind, std::string_view payload);
std::string format_spec(const SubjectSpec& spec);

// The spec's kind spelt with a colon and nothing after it ("cmd:"), for a
// sentence that names a kind ("only builtin:, mutant: and cmd: subjects").
std::string kind_prefix(SubjectKind kind);

// Whether `spec` parses and is of kind `kind`.
bool is_kind(std::string_view spec, SubjectKind kind);

// builtin: and mutant: subjects: objects of pecheck's own, which run nothing
// from outside (a recorded one replays without the trust gate).
bool is_builtin_like(SubjectKind kind);

// builtin:, mutant: and cmd: subjects: a new, independent instance can be
// made from the spec alone (a fresh copy, a parallel job's own).
bool starts_again_from_spec(SubjectKind kind);

// cmd:, fd: and plugin: subjects: answered by another process (plugin: is,
// under the CLI), so a request costs a round trip.
bool runs_in_another_process(SubjectKind kind);

}  // namespace pecheck

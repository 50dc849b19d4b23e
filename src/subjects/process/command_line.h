#pragma once
// How a cmd: subject is started. A command that is a plain list of words
// (quoted as in a POSIX shell: '…', "…", backslash) is exec'd directly, so
// the subject is pecheck's own child: when it closes its stdout pecheck sees
// it at once (a shell in between would hold the pipe open), and its exit
// status and signals are its own. Anything that needs a shell to mean what
// it says runs under `/bin/sh -c COMMAND`:
//   - unquoted | & ; < > ( ) $ ` * ? [ ] { } ! or a newline (pipes,
//     redirections, lists, expansions, substitutions, globs, groups);
//   - ~ or # at the start of a word (tilde expansion, a comment);
//   - a first word that assigns (NAME=value) or is a shell keyword or a
//     builtin without a program of its own (cd, export, if, for, ., source,
//     ulimit, …);
//   - a `"…"` holding $ or `, or a quote left open.
// A leading `exec` word is dropped (exec'ing the rest is what it asks for).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck::process {

// The argv to exec for `command`, or nullopt when it needs a shell.
std::optional<std::vector<std::string>> split_command(std::string_view command);

}  // namespace pecheck::process

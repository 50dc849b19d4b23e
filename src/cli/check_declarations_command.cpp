#include "cli/check_declarations_command.h"

#include <iostream>
#include <string>

#include "cli/commands.h"
#include "pecheck/protocol/check_declarations.h"

namespace pecheck::cli {

int check_declarations_command() {
  int code = kExitOk;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json verdict = check_declarations(line);
    if (!verdict.at("ok").get<bool>()) code = kExitUsage;
    // Replaced, not refused: a hostile hello's odd bytes come back as U+FFFD.
    std::cout << verdict.dump(-1, ' ', false, json::error_handler_t::replace) << '\n' << std::flush;
  }
  return code;
}

}  // namespace pecheck::cli

#include "cli/explain_config_command.h"

#include <iostream>

#include "cli/commands.h"
#include "pecheck/core/escape.h"
#include "pecheck/protocol/model_config.h"

namespace pecheck::cli {

int explain_config(const std::string& path, bool as_json) {
  model::ModelReading reading;
  try {
    reading = model::read_model_config(model::load_model_config(path));
  } catch (const model::ModelConfigError& e) {
    std::cerr << "pecheck explain-config: " << escape_terminal(e.what()) << "\n";
    return kExitUsage;
  }
  if (as_json) {
    std::cout << model::reading_json(reading).dump(2) << "\n";
  } else {
    std::cout << "pecheck explain-config: " << escape_terminal(path) << "\n" << escape_terminal(model::reading_text(reading));
  }
  return kExitOk;
}

}  // namespace pecheck::cli

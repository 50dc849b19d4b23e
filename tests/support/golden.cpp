#include "support/golden.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pecheck::testing {

std::string compare_golden(const std::string& name, const std::string& text) {
  const char* root = std::getenv("PECHECK_SOURCE_DIR");
  const std::string path = std::string(root ? root : ".") + "/tests/golden/" + name;
  if (const char* update = std::getenv("PECHECK_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "missing golden file " + path + " (run with PECHECK_UPDATE_GOLDEN=1)";
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string want = buf.str();
  if (want == text) return {};
  size_t i = 0;
  while (i < want.size() && i < text.size() && want[i] == text[i]) ++i;
  const size_t line = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(i), '\n')) + 1;
  return path + " differs at line " + std::to_string(line) + ": got «" + text.substr(i, 60) + "», want «" +
         want.substr(i, 60) + "»";
}

}  // namespace pecheck::testing

#pragma once
// The reader of pecheck.toml's [subject."SPEC"] tables (config_file.cpp's
// hook for the `subject` key when it is a table).
#include <toml++/toml.h>

#include <string>

#include "pecheck/config/config_file.h"

namespace pecheck {

// Each key is a subject spec, each value its declarations; the specs are
// appended to out.subjects (in the table's order: sorted by spec). Throws
// ConfigError naming the file, line and key.
void read_subject_declarations(const toml::table& table, const std::string& source, FileConfig& out);

}  // namespace pecheck

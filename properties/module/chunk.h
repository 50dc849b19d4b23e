#pragma once
// module.chunk_isolation's checks (properties/module/chunk.cpp), shared with
// module.config_conformance, which judges a config's chunked layers by them.
#include <string>
#include <vector>

#include "module/window.h"

namespace pecheck::module::chunk {

// For one layer of chunk C: rows after token c.changed in a later chunk do
// not move (`others`); the last row of its chunk does (`own`).
std::vector<Check> chunk_checks(Subject& s, const window::WindowCase& c, Position chunk, const BoundModel& model,
                                const char* others, const char* own);
// Which tokens rows C − 1 and C of the layer see, naming the layer and `field`.
std::string chunk_diagnosis(Subject& s, const window::WindowCase& c, Position chunk, const std::string& field,
                            const BoundModel& model);

}  // namespace pecheck::module::chunk

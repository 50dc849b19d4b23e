#pragma once
// report.html: one self-contained page (inline CSS and SVG, no script, no
// network) with the claims matrix as a colour grid, the precision budgets,
// each failure and witness as a card, and the plots gathered by the probe.
// Pure: results in, text out. A Content-Security-Policy forbids scripts and
// any fetch, so even a subject string that slipped past escaping stays inert.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

std::string write_html(const RunReport& report);

}  // namespace pecheck

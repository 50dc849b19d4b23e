#pragma once
// `pecheck check-declarations`: each line of stdin a hello (a JSON object),
// each answered on stdout by one line, pecheck's verdict on its declarations
// (pecheck/protocol/check_declarations.h). The Python package asks it before
// it serves, so a mistake is a ValueError in pecheck's words at the call.
namespace pecheck::cli {

// 0 every hello was accepted, 2 one was refused or a line is not JSON.
int check_declarations_command();

}  // namespace pecheck::cli

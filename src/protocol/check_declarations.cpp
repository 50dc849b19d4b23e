#include "pecheck/protocol/check_declarations.h"

#include "protocol/hello.h"
#include "protocol/responses.h"

namespace pecheck {

json check_declarations(std::string_view hello_text) {
  try {
    (void)process::read_hello(process::parse_answer(hello_text));
    return {{"ok", true}};
  } catch (const BadDeclaration& e) {
    return {{"ok", false}, {"kind", "declaration"}, {"field", e.field}, {"message", e.what()}};
  } catch (const process::Breach& e) {
    return {{"ok", false}, {"kind", "protocol"}, {"message", e.what()}};
  }
}

}  // namespace pecheck

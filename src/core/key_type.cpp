#include "docshard/core/key_type.hpp"

namespace docshard {

char const* KeyTypeName(KeyType type) noexcept { return type == KeyType::String ? "string" : "number"; }

}  // namespace docshard

// The library's own copy of the version, so a program built against one
// header version and linked with another library can tell (version.hpp).
#include <docshard/version.hpp>

namespace docshard {

char const* Version() noexcept { return DOCSHARD_VERSION_STRING; }

}  // namespace docshard
